"""Submissions, judging and the jury's tools: submit and rejudge (submissions.py), results, the judging
queue and its pool (queue.py, pool.py, idle.py), ignoring and reviewing (moderation.py), pausing and holding
(operations.py), package versions and rejudge previews (versions.py, packages.py, previews.py,
preview_queue.py, preview_view.py), live fuzzing (fuzz_jobs.py, fuzzing.py), similar submissions
(similarity.py, similarity_queue.py)."""
