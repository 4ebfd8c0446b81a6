"""LTI 1.3 (issue 48, docs/course.md "The course in your LMS (LTI 1.3)"): the tool's keys and the platforms'
(tool.py), the outbound HTTP client (client.py), the login and the launch (launch.py), deep linking
(deeplink.py), the grades sent to the LMS (grades.py) and the roster read from it (nrps.py)."""
