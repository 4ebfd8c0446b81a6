# Elixir is not one of the judge's languages: this file is listed under "Not judged" on the scoreboard.
n = System.argv() |> Enum.map(&String.to_integer/1)
System.halt(if rem(Enum.sum(n), 3) == 0, do: 0, else: 1)
