{ The seed's unit `CardGiver`, same interface, but the cards are held by the judge's oracle: TurnCard
  speaks the problem's line protocol on stdin/stdout (so a `Memory` unit must not use them).
  TurnCard returns the letter, or #0 when the flip is invalid (a card that left the game, the 1st card of
  the current turn again, CardID outside 1..50, or any flip after the game is over); TurnCounter counts
  the valid flips; GameOver is true once every pair has left the game. }
unit CardGiver;

{$mode objfpc}

interface

function GameOver : Boolean;
function PrepareCards : Boolean;
function TurnCard(CardID : Byte) : Char;
function TurnCounter : Integer;

implementation

var
  FirstLetter : Char;    { letter of the 1st card of the current turn, #0 = none }
  TurnCount   : Integer; { valid flips }
  PairsLeft   : Integer;

function GameOver : Boolean;
begin
  Result := PairsLeft = 0;
end;

function PrepareCards : Boolean;
begin
  { the oracle has dealt the cards already }
  Result := true;
end;

function TurnCard(CardID : Byte) : Char;
var
  Line : String;
  Index : Integer;
begin
  Result := #0;
  if (CardID < 1) or (CardID > 50) or (PairsLeft = 0) then
    Exit;
  WriteLn(CardID);
  Flush(Output);
  if EOF(Input) then
    Halt(0); { the oracle has stopped }
  ReadLn(Line);
  for Index := 1 to Length(Line) do
    if (Line[Index] >= 'A') and (Line[Index] <= 'Y') then
    begin
      Result := Line[Index];
      Break;
    end;
  if Result = #0 then
    Exit; { "0": invalid flip }
  Inc(TurnCount);
  if FirstLetter = #0 then
    FirstLetter := Result
  else
  begin
    if FirstLetter = Result then
      Dec(PairsLeft);
    FirstLetter := #0;
  end;
  if (PairsLeft = 0) and not EOF(Input) then
    ReadLn(Line); { END }
end;

function TurnCounter : Integer;
begin
  Result := TurnCount;
end;

initialization
  FirstLetter := #0;
  TurnCount := 0;
  PairsLeft := 25;

end.
