import {
  formatGtidPosition,
  gtidPositionCovers,
  laterGtidPosition,
  parseGtidPosition,
  type GtidPosition,
} from "../../src/db/gtid";

// MariaDB GTID positions as the read routing uses them (src/db/gtid.ts): pure functions, no server.

const position = (text: string): GtidPosition => {
  const parsed = parseGtidPosition(text);
  if (!parsed) throw new Error(`not a position: ${text}`);
  return parsed;
};

describe("replication positions (MariaDB GTIDs)", () => {
  it("parses domain-server-sequence lists and prints them sorted by domain", () => {
    expect(formatGtidPosition(position("1-2-30, 0-1-18446744073709551615"))).toBe("0-1-18446744073709551615,1-2-30");
    for (const bad of [
      "",
      " ",
      "0-1",
      "0-1-2-3",
      "a-1-2",
      "0-1-2,",
      "0-1-2,0-1-3",
      "0-1-18446744073709551616",
      "4294967296-1-1",
    ])
      expect([bad, parseGtidPosition(bad)]).toEqual([bad, null]);
    expect(parseGtidPosition(Array.from({ length: 17 }, (_, i) => `${i}-1-1`).join(","))).toBeNull();
  });

  it("the later of two positions, domain by domain; a replica covers a position once every domain has reached it", () => {
    const merged = laterGtidPosition(position("0-1-10,1-1-5"), position("0-2-8,1-2-9,2-1-1"))!;
    expect(formatGtidPosition(merged)).toBe("0-1-10,1-2-9,2-1-1");
    expect(laterGtidPosition(null, null)).toBeNull();
    expect(gtidPositionCovers(position("0-1-10,1-1-9"), position("0-1-10"))).toBe(true);
    expect(gtidPositionCovers(position("0-1-10"), position("0-1-11"))).toBe(false);
    expect(gtidPositionCovers(position("0-1-10"), position("0-1-3,1-1-1"))).toBe(false);
    expect(gtidPositionCovers(null, position("0-1-1"))).toBe(false);
  });
});
