/**
 * An organization whose users differ only in size: parents with 1, 10 and 50 forms and as many
 * children (each child with the same forms), values, tags and a status, so a nested read can be
 * measured at three sizes. Ids are far from the demo fixture's, so both can be loaded together.
 */
export const SCALE = {
  organizationId: 7,
  apiId: "70001",
  apiUser: "api@scale.test",
  apiToken: "scale-token-70001",
  groupId: 700000001,
  statusId: 7101,
  sizes: [1, 10, 50] as const,
  parentOf: (size: number) => 9_000_000 + size,
  childOf: (size: number, index: number) => 9_100_000 + size * 100 + index,
  formId: (index: number) => 8001 + index,
};

export const scaleHeaders = { "Api-Id": SCALE.apiId, "Api-User": SCALE.apiUser, "Api-Token": SCALE.apiToken };

const MAX_FORMS = Math.max(...SCALE.sizes);

export function scaleOrganization() {
  const formIds = Array.from({ length: MAX_FORMS }, (_, i) => SCALE.formId(i));
  const forms = formIds.map((id, i) => ({
    id,
    name: `Form ${i + 1}`,
    mandatory: i % 2 === 0,
    fields: [
      { id: `f_${id}_1`, label: `Name ${i + 1}`, type: "text", mandatory: true },
      { id: `f_${id}_2`, label: `Choice ${i + 1}`, type: "single_choice", options: ["A", "B"] },
    ],
  }));
  const users: Record<string, unknown>[] = [];
  for (const size of SCALE.sizes) {
    const own = formIds.slice(0, size);
    // Every other form gets its mandatory answer, so some forms have missing mandatory fields.
    const values = Object.fromEntries(
      own
        .filter((_, i) => i % 2 === 0)
        .flatMap((id) => [
          [`f_${id}_1`, `value ${id}`],
          [`f_${id}_2`, ["B"]],
        ]),
    );
    users.push({
      cloginId: SCALE.parentOf(size),
      username: `parent${size}@scale.test`,
      firstName: "Parent",
      lastName: String(size),
      forms: own,
      completedForms: own.filter((_, i) => i % 3 === 0),
      values,
      statusId: SCALE.statusId,
      tagIds: [7001, 7002, 7003].slice(0, Math.min(3, size)),
      comments: size,
      cart: Array.from({ length: Math.min(size, 5) }, () => ({ productId: 7201, quantity: 1 })),
    });
    for (let index = 0; index < size; index += 1) {
      users.push({
        cloginId: SCALE.childOf(size, index),
        username: `child${size}-${index}@scale.test`,
        firstName: "Child",
        lastName: `${size}-${index}`,
        connectedTo: SCALE.parentOf(size),
        forms: own,
        values,
        tagIds: [7001],
      });
    }
  }
  return {
    id: SCALE.organizationId,
    name: "Scale Org",
    apiAccounts: [{ id: Number(SCALE.apiId), user: SCALE.apiUser, token: SCALE.apiToken, active: true }],
    projects: [
      {
        id: SCALE.groupId,
        name: "Scale Project",
        familySystem: true,
        tags: [
          { id: 7001, name: "One" },
          { id: 7002, name: "Two" },
          { id: 7003, name: "Three" },
        ],
        statuses: [{ id: SCALE.statusId, name: "Accepted", color: "#00AA00" }],
        products: [{ id: 7201, name: "Week", price: "10.00" }],
        forms,
        users,
      },
    ],
  };
}
