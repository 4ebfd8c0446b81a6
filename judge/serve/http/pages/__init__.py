"""The HTML pages, each module with its table of pages: the public's and the teams' (team_pages.py), the
jury's and the admins' (admin_pages.py, live_pages.py, people_pages.py), clarifications (clar_pages.py,
clar_views.py), printing (print_pages.py), live fuzzing (fuzz_pages.py, fuzz_views.py), rejudge previews
(preview_pages.py), similar submissions (similarity_pages.py), the awards and the resolver (awards_page.py,
resolver_page.py); their plumbing: web.py (a page request, rendering), sessions.py (cookies, CSRF),
notices.py, confirm.py, rows.py."""
