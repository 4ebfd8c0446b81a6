{ Rummy numbers: the closed criterion (see reference/rummy.py), in Free Pascal. }
program rummy;

var
  n, d: array[0..12] of longint;
  i, code: longint;
  ok: boolean;

begin
  for i := 0 to 12 do
    val(ParamStr(i + 1), n[i], code);
  for i := 0 to 12 do
  begin
    d[i] := n[i] - n[(i + 12) mod 13];
    if d[i] < 0 then
      d[i] := 0;
  end;
  ok := true;
  for i := 0 to 12 do
    if d[(i + 11) mod 13] + d[(i + 12) mod 13] + d[i] > n[i] then
      ok := false;
  if ok then
    halt(0)
  else
    halt(1);
end.
