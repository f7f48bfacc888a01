// A pragmatic address check (what browsers use for <input type=email>): local@domain.tld.
const ADDRESS =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}

/** Splits a comma-separated address list; returns the entries that are not valid addresses. */
export function invalidAddresses(list: string): string[] {
  const entries = list.split(",").map((entry) => entry.trim());
  return entries.filter((entry) => !isEmailAddress(entry));
}
