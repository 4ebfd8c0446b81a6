unit Memory;

interface

function PlayGame : Boolean;

implementation

uses
  CardGiver;

function PlayGame : Boolean;
var
  CardA     : Char;
  CardB     : Char;
  CardStack : array ['A'..'Z'] of Byte;
  Index     : Char;
  IndexB    : Byte;
begin
  for Index := 'A' to 'Z' do
    CardStack[Index] := 0;

  IndexB := 1;
  while (IndexB <= 50) do
  begin
    CardA := TurnCard(IndexB);
    if (CardA <> #0) then // card is valid
    begin
      if ((CardStack[CardA] >= 1) and (CardStack[CardA] <= 50)) then // card value has been seen before
      begin
        // flip matching card
        TurnCard(CardStack[CardA]);
        CardStack[CardA] := 255;
      end
      else
      begin
        if (CardStack[CardA] = 0) then // card value has not been seen before
        begin
          // save card position
          CardStack[CardA] := IndexB;

          // flip second card
          IndexB := Succ(IndexB);
          if (IndexB <= 50) then
          begin
            CardB := TurnCard(IndexB);

            if (CardA = CardB) then // 1st and 2nd card are a pair
              CardStack[CardB] := 255
            else
            begin
              if ((CardStack[CardB] >= 1) and (CardStack[CardB] <= 50)) then // card value has been seen before
              begin
                // flip matching cards
                TurnCard(IndexB);
                TurnCard(CardStack[CardB]);
                CardStack[CardB] := 255;
              end
              else
              begin
                // save card position
                CardStack[CardB] := IndexB;
              end;
            end;
          end;
        end;
      end;
    end;

    // move to next card
    IndexB := Succ(IndexB);
  end;

  Result := true;
end;

end.
