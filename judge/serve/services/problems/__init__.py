"""The problems as the contest serves them: problems, samples, attachments and accounts as visibility
allows (config.py), the PDF statements (statements.py)."""
