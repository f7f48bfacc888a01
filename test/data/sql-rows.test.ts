import { decodeRows, RowShapeError } from "../../src/data/sql-rows";

describe("decodeRows", () => {
  const shape = { uid: "int", name: "textOrNull", star: "flag", total: "int", at: "dateOrNull" } as const;

  it("reads driver values the same way on every driver", () => {
    const [row] = decodeRows(shape, [{ uid: "12", name: null, star: 1, total: "350", at: "2026-02-01 09:30:00" }]);
    expect(row).toEqual({ uid: 12, name: null, star: true, total: 350, at: new Date(Date.UTC(2026, 1, 1, 9, 30)) });
  });

  it("refuses a result that lacks a column of the shape, instead of reading it as 0", () => {
    expect(() => decodeRows(shape, [{ uid: 1, name: "x", star: 0, totl: 3, at: null }], "SELECT … AS totl")).toThrow(
      RowShapeError,
    );
    expect(() => decodeRows(shape, [{ uid: 1, name: "x", star: 0, totl: 3, at: null }])).toThrow(/column "total"/);
  });
});
