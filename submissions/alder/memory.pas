unit Memory;

interface

function PlayGame : Boolean;

implementation

uses
  CardGiver;

function PlayGame : Boolean;
var
  CardStack : array [1..50] of Char;
  Index     : Byte;
  IndexB    : Byte;
begin
  for Index := 1 to 25 do
  begin
    CardStack[Pred(Index * 2)] := TurnCard(Pred(Index * 2));
    CardStack[(Index * 2)]     := TurnCard((Index * 2));

    if (CardStack[Pred(Index * 2)] = CardStack[(Index * 2)]) then
    begin
      CardStack[Pred(Index * 2)] := #0;
      CardStack[(Index * 2)]     := #0;
    end;
  end;

  Index := 1;
  repeat
    if (CardStack[Index] <> #0) then
    begin
      for IndexB := Succ(Index) to High(CardStack) do
      begin
        if (CardStack[Index] = CardStack[IndexB]) then
        begin
          TurnCard(Index);
          TurnCard(IndexB);

          CardStack[Index]  := #0;
          CardStack[IndexB] := #0;

          Break;
        end;
      end;
    end;

    Index := Succ(Index);
  until (Index > High(CardStack));

  Result := true;
end;

end.
