# Ruby is not one of the judge's languages: this file is listed under "Not judged" on the scoreboard.
n = ARGV.map(&:to_i)
exit(n.sum % 3 == 0 ? 0 : 1)
