"""The use cases of `judge serve`, one function each (submit, rejudge, judge a job, freeze, thaw, the
scoreboard, the event feed, log in, ...), called alike by the API's handlers and the HTML pages. They
take the ``Services`` of the running contest (``deps``) and who asks; they read and write through the
storage Protocols and ask judge/serve/visibility.py who may see what."""
