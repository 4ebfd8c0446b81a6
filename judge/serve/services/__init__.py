"""The use cases of `judge serve`, one function each (submit, rejudge, judge a job, freeze, thaw, the
scoreboard, the event feed, log in, ...), called alike by the API's handlers and the HTML pages, grouped
by domain: core (the event log, the phases, what every service receives), board, people, judging, desk,
problems, lifecycle; the Contest API's documents and the archive above them. They take the parts of the
contest they serve (a Protocol: each domain's ``context.py``; serve/site composes them) and who asks; they
read and write through the storage Protocols and ask judge/serve/visibility.py who may see what."""
