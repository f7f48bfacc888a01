import { accountTotals, lineAmountCents } from "../../src/data/account-sums";
import { displayName } from "../../src/data/summary-columns";

// The rules the data layer applies to what it read, as functions.

describe("accountTotals", () => {
  it("is ordered minus paid, in cents", () => {
    expect(accountTotals(12_500, 2_500)).toEqual({
      totalOrderCents: 12_500,
      totalPaidCents: 2_500,
      totalBalanceCents: 10_000,
    });
  });

  it("a balance goes negative when more was paid than ordered", () => {
    expect(accountTotals(1_000, 1_500).totalBalanceCents).toBe(-500);
  });

  it("discount lines may take the summed lines below zero, the order never (contract §13)", () => {
    expect(accountTotals(-300, 0)).toEqual({ totalOrderCents: 0, totalPaidCents: 0, totalBalanceCents: 0 });
    expect(accountTotals(-300, 200)).toEqual({ totalOrderCents: 0, totalPaidCents: 200, totalBalanceCents: -200 });
  });

  it("a line's amount is its quantity times its unit price, a discount negative", () => {
    expect(lineAmountCents(3, 1_250)).toBe(3_750);
    expect(lineAmountCents(1, -500)).toBe(-500);
  });
});

describe("displayName (contract §6)", () => {
  const person = { firstName: null, lastName: null, orgName: null, username: "jdoe" };

  it("is first and last name, trimmed", () => {
    expect(displayName({ ...person, firstName: "Ada", lastName: "Lovelace" })).toBe("Ada Lovelace");
    expect(displayName({ ...person, firstName: " Ada ", lastName: null })).toBe("Ada");
    expect(displayName({ ...person, firstName: null, lastName: "Lovelace" })).toBe("Lovelace");
  });

  it("else the organization name, trimmed; else the username", () => {
    expect(displayName({ ...person, orgName: "  Maple Camp " })).toBe("Maple Camp");
    expect(displayName({ ...person, firstName: " ", lastName: "", orgName: " " })).toBe("jdoe");
    expect(displayName(person)).toBe("jdoe");
  });

  it("a name wins over the organization", () => {
    expect(displayName({ ...person, firstName: "Ada", orgName: "Maple Camp" })).toBe("Ada");
  });
});
