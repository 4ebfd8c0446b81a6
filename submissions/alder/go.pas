{ Problem go, partially accepted: the seed's scheme (Martin Hirt's solution to "Go-Spiel"),
  made into a two-pass program. 5 points per byte (3^5 = 243 <= 256), 361 points -> 73 bytes,
  one byte above the information limit: 100 - 50 * (73 - 72) / 8 = 93.75 points on every test.
  Standard input is read raw with fpRead (a Text file would be line-buffered and would not
  return the bytes of pass 2 faithfully); the encoding is written raw with fpWrite. }
PROGRAM GO;

USES BaseUnix;

CONST
  N = 19; // 19 x 19 board
  L = 73; // # bytes needed, 19*19 / floor(8/log_2(3))
  MAXIN = 65536;

TYPE
  TBoard = ARRAY [0..N-1,0..N-1] OF Byte; // 0=empty, 1=black, 2=white
  TMem = ARRAY [0..L-1] OF Byte;

VAR
  inbuf : ARRAY [0..MAXIN-1] OF Byte;
  inlen : LongInt;

PROCEDURE ReadAll;
VAR got : TSsize;
BEGIN
  inlen := 0;
  REPEAT
    got := fpRead(0, inbuf[inlen], MAXIN - inlen);
    IF got > 0 THEN Inc(inlen, got);
  UNTIL (got <= 0) OR (inlen >= MAXIN);
END;

PROCEDURE ParseBoard (VAR board : TBoard);
// The 361 characters from '.BW' after the first line, in reading order
VAR i,j,pos : LongInt;
    c : Char;
BEGIN
  pos := 7; // after 'ENCODE'#10
  FOR i := 0 TO N-1 DO
    FOR j := 0 TO N-1 DO
    BEGIN
      WHILE (pos < inlen) AND NOT (Chr(inbuf[pos]) IN ['.','B','W']) DO Inc(pos);
      c := '.';
      IF pos < inlen THEN BEGIN c := Chr(inbuf[pos]); Inc(pos); END;
      CASE c OF
        'B': board[i,j] := 1;
        'W': board[i,j] := 2;
      ELSE board[i,j] := 0;
      END;
    END;
END;

PROCEDURE PrintBoard (CONST board : TBoard);
VAR
  i,j : INTEGER;
  str : STRING;
BEGIN
  str := '.BW'; // Characters for empty / black / white
  FOR i := Low(board) TO High(board) DO
  BEGIN
    FOR j := Low(board[i]) to High(Board[i]) DO
      Write(str[Board[i,j]+1]);
    Writeln;
  END;
END;

PROCEDURE CompressBoard (CONST board : TBoard; VAR mem : TMem);
// Compress board into mem.
// Group 5 cells, store cell[1]*1 + cell[2]*3 + cell[3]*9 + ...
// ... + cell[5]*81
VAR i,j,k,base : INTEGER;
BEGIN
  k := -1; // index into mem
  base := 1000; // start new memory cell
  FOR i := Low(board) TO High(board) DO
    FOR j := Low(board[i]) to High(Board[i]) DO
    BEGIN
      IF base*3 > 256 THEN // no space left, use next cell
      BEGIN
        Inc(k); mem[k] := 0; base := 1; // initialize next cell
      END;
      Inc(mem[k],board[i,j]*base); // poke current tile into current cell
      base := base * 3; // base 3
    END;
END;

PROCEDURE UncompressBoard (CONST mem : TMem; VAR board : TBoard);
// Uncompress mem into board
// Each memory cell contains 5 tiles
VAR i,j,k,base : INTEGER;
BEGIN
  k := -1;
  base := 1000;
  FOR i := Low(board) TO High(board) DO
    FOR j := Low(board[i]) to High(Board[i]) DO
    BEGIN
      IF base*3 > 256 THEN
      BEGIN
        Inc(k); base := 1;
      END;
      board[i,j] := (mem[k] div base) mod 3;
      base := base * 3;
    END;
END;

VAR
  b : TBoard;
  m : TMem;
  k : INTEGER;
BEGIN
  ReadAll;
  IF (inlen >= 6) AND (Chr(inbuf[0]) = 'E') THEN // ENCODE
  BEGIN
    ParseBoard(b);
    CompressBoard(b, m);
    fpWrite(1, m, L);
  END
  ELSE // DECODE: the L bytes after 'DECODE'#10
  BEGIN
    FOR k := 0 TO L-1 DO
      IF 7 + k < inlen THEN m[k] := inbuf[7 + k] ELSE m[k] := 0;
    UncompressBoard(m, b);
    PrintBoard(b);
  END;
END.
