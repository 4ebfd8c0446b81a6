"""What every layer of `judge serve` shares: the contest package as frozen records (``contest``), times
(``times``), who is asking (``viewer``), the stored records (``records``), the contest's phases
(``phase``), the Contest API's JSON shapes (``apijson``), the live board (``board``), uploads (``upload``)
and the one refusal (``errors``). Pure: no database, no HTTP, no threads."""
