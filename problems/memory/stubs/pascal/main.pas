{ Main program for Pascal submissions of `memory` that are a unit `Memory` (the judge supplies it, as in
  the seed's `PasMemory`, minus its output: stdout talks to the oracle). The submission is saved as
  memory.pas; cardgiver.pas replaces the seed's `CardGiver` unit. }
program PasMemory;

uses
  CardGiver,
  Memory;

begin
  PrepareCards;
  PlayGame;
end.
