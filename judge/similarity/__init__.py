"""Similar submissions (issue 49, docs/similarity.md): per problem, the pairs of submissions that share more
code than the threshold, for the jury and the instructor. Pure: sources in, a report out (fingerprints
with copydetect's tokenizer and winnowing, our own comparison loop), and the report as JSON and HTML.
`judge similarity`, `judge grade --similarity` and `judge serve`'s jury page use it."""
