import type { EntityManager } from "typeorm";
import { cartLineAmountSql, paymentAmountSql } from "./account-sums";
import { assertColumns, decodeColumn, jsonObjectsSql, type ListSql } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";
import {
  displayName,
  flag,
  formCount,
  int,
  intOrNull,
  intOrZero,
  statusOf,
  tagsOf,
  textOrNull,
  totalsOf,
  type RawSummaryRow,
} from "./summary-columns";

// The user summary (legacy `meta_info`, GraphQL `MetaInfo` and the User fields read from it),
// declared once. A member names the parts it reads and decodes itself from a statement's row;
// a part is SQL (select-list entries, maybe a join) that members share. Everything else derives
// from here: the select list of a statement reading some members (only their parts), the
// decoder (only those members), the `UserSummary` type, and what a GraphQL selection must read
// (summary-selection.ts). Adding a member is one entry here plus one line in each presenter
// (docs/architecture.md).

/** SQL that members share: select-list entries (registration alias `r`) and the join they need. */
export interface SummaryPartSql {
  /** The aliases its select-list entries return. */
  columns: readonly string[];
  select: (em: EntityManager) => string;
  /** A join the entries read (the person, the status, the admin), once per statement. */
  join?: { table: string; sql: string };
  /**
   * A part whose one column is a list (a JSON array of its rows' objects, as `select` reads it):
   * the same rows can be read as an arm of the statement instead (withListArms).
   */
  list?: ListSql;
}

const PERSON_JOIN = { table: "person", sql: "person p ON p.id = r.person_id" };
const STATUS_JOIN = { table: "status", sql: "status s ON s.id = r.status_id" };

// A registration's tags as one JSON array column, so a summary costs one statement (the owned
// read, readOwnedSummary, reads the same rows as an arm of its statement).
const TAGS_LIST: ListSql = {
  from: "registration_tag rt JOIN tag t ON t.id = rt.tag_id",
  owner: "rt.registration_id",
  members: [
    ["id", "t.id"],
    ["name", "t.name"],
  ],
};

/**
 * The parts, in select-list order. `forms` and `formCount` both fill `form_counts` (six counts
 * "n,n,n,n,n,n" from one correlated subquery; `formCount` the first alone, an index-only count):
 * `forms` wins when both are read.
 */
const PARTS = {
  // First: a full select list reads them right after the identity columns, as it always has.
  dates: {
    columns: ["application_date", "updated_at"],
    select: () => "r.application_date, r.updated_at",
  },
  person: {
    columns: ["username", "first_name", "last_name", "org_name"],
    select: () => "p.username, p.first_name, p.last_name, p.org_name",
    join: PERSON_JOIN,
  },
  status: {
    columns: ["status_id", "status_name", "status_color", "status_excluded"],
    select: () => "s.id AS status_id, s.name AS status_name, s.color AS status_color, s.is_excluded AS status_excluded",
    join: STATUS_JOIN,
  },
  admin: {
    columns: ["admin_id", "admin_initials", "admin_color"],
    select: () => "a.id AS admin_id, a.initials AS admin_initials, a.color AS admin_color",
    join: { table: "admin", sql: "admin a ON a.id = r.assigned_admin_id" },
  },
  forms: {
    columns: ["form_counts"],
    select: () => `(SELECT CONCAT(COUNT(*),
                 ',', COALESCE(SUM(CASE WHEN rf.completed = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND rf.completed = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND f.mandatory = 1 THEN 1 ELSE 0 END), 0),
                 ',', COALESCE(SUM(CASE WHEN f.audience = 'user' AND f.mandatory = 1 AND rf.completed = 1 THEN 1 ELSE 0 END), 0))
          FROM registration_form rf JOIN form f ON f.id = rf.form_id
         WHERE rf.registration_id = r.uid) AS form_counts`,
  },
  formCount: {
    columns: ["form_counts"],
    // COUNT(*) alone needs no join to form: an index-only count (the other five counts read as 0).
    select: () => "(SELECT COUNT(*) FROM registration_form rf WHERE rf.registration_id = r.uid) AS form_counts",
  },
  order: {
    columns: ["order_cents"],
    select: () =>
      `(SELECT COALESCE(SUM(${cartLineAmountSql("c")}), 0) FROM cart_line c WHERE c.registration_id = r.uid) AS order_cents`,
  },
  paid: {
    columns: ["paid_cents"],
    select: () =>
      `(SELECT COALESCE(SUM(${paymentAmountSql("pm")}), 0) FROM payment pm WHERE pm.registration_id = r.uid) AS paid_cents`,
  },
  comments: {
    columns: ["comment_count"],
    select: () => "(SELECT COUNT(*) FROM admin_comment ac WHERE ac.registration_id = r.uid) AS comment_count",
  },
  children: {
    columns: ["non_excluded_children"],
    select: () => `(SELECT COUNT(*) FROM registration ch LEFT JOIN status cs ON cs.id = ch.status_id
          WHERE ch.project_id = r.project_id AND ch.connected_to = r.person_id
            AND ${statusExcludedSql("cs", false)}) AS non_excluded_children`,
  },
  tags: {
    columns: ["tags"],
    select: (em: EntityManager) =>
      `(SELECT ${jsonObjectsSql(em, TAGS_LIST.members)} FROM ${TAGS_LIST.from} WHERE ${TAGS_LIST.owner} = r.uid) AS tags`,
    list: TAGS_LIST,
  },
} satisfies Record<string, SummaryPartSql>;

/** A part of the summary a statement may read or leave out (the identity columns are always read). */
export type SummaryPart = keyof typeof PARTS;

/** The identity columns every summary statement reads (the dates are a part: the driver makes a Date of each). */
export const SUMMARY_IDENTITY_SQL = "r.uid, r.project_id, r.person_id, r.connected_to, r.star";
const IDENTITY_COLUMNS = ["uid", "project_id", "person_id", "connected_to", "star"];

/** A member: the parts it reads and how it decodes from a row holding them. */
export interface SummaryMember<V = unknown> {
  parts: readonly SummaryPart[];
  decode: (raw: RawSummaryRow) => V;
  /**
   * Decoded in every summary, whatever the read asked for: who the registration is, which the
   * reads themselves (a page's order, a family's parent), the users they hand on and the node ids
   * of what presents a summary use.
   */
  identity?: true;
}

const member = <V>(parts: readonly SummaryPart[], decode: (raw: RawSummaryRow) => V): SummaryMember<V> => ({
  parts,
  decode,
});
const identity = <V>(decode: (raw: RawSummaryRow) => V): SummaryMember<V> => ({ parts: [], decode, identity: true });

/** The members, in the order a summary holds them. */
export const USER_PROJECTION = {
  uid: identity((raw) => int(raw.uid)),
  groupId: identity((raw) => int(raw.project_id)),
  cloginId: identity((raw) => int(raw.person_id)),
  /** The parent's clogin_id for a child, else null. */
  parentCloginId: identity((raw) => intOrNull(raw.connected_to)),
  /** Legacy `connected_to`: the parent's clogin_id for a child, else the user's own. */
  connectedTo: member([], (raw) => intOrNull(raw.connected_to) ?? int(raw.person_id)),
  name: member(["person"], (raw) =>
    raw.username === undefined
      ? ""
      : displayName({
          firstName: textOrNull(raw.first_name),
          lastName: textOrNull(raw.last_name),
          orgName: textOrNull(raw.org_name),
          username: decodeColumn("text", raw.username) as string,
        }),
  ),
  totalForms: member(["formCount"], (raw) => formCount(raw, 0)),
  completedForms: member(["forms"], (raw) => formCount(raw, 1)),
  totalUserForms: member(["forms"], (raw) => formCount(raw, 2)),
  totalCompletedUserForms: member(["forms"], (raw) => formCount(raw, 3)),
  totalUserMandatoryForms: member(["forms"], (raw) => formCount(raw, 4)),
  totalCompletedUserMandatoryForms: member(["forms"], (raw) => formCount(raw, 5)),
  totalOrderCents: member(["order"], (raw) => totalsOf(raw).totalOrderCents),
  totalPaidCents: member(["paid"], (raw) => intOrZero(raw.paid_cents)),
  /** Ordered minus paid; negative when more was paid than ordered. */
  totalBalanceCents: member(["order", "paid"], (raw) => totalsOf(raw).totalBalanceCents),
  status: member(["status"], statusOf),
  applicationDate: member(["dates"], (raw) => decodeColumn("date", raw.application_date) as Date),
  /** The registration's last change (values, forms, cart, status, emails): changes since. */
  updatedAt: member(["dates"], (raw) => decodeColumn("date", raw.updated_at) as Date),
  commentCount: member(["comments"], (raw) => intOrZero(raw.comment_count)),
  excluded: member(["status"], (raw) => raw.status_id != null && flag(raw.status_excluded)),
  tagIds: member(["tags"], (raw) => tagsOf(raw).map((tag) => tag.id)),
  /** The tags themselves, by id. */
  tags: member(["tags"], tagsOf),
  nonExcludedChildren: member(["children"], (raw) => intOrZero(raw.non_excluded_children)),
  star: member([], (raw) => flag(raw.star)),
  assignedAdmin: member(["admin"], (raw) => {
    const id = intOrNull(raw.admin_id);
    return id === null ? null : { id, initials: textOrNull(raw.admin_initials), color: textOrNull(raw.admin_color) };
  }),
};

type Projection = typeof USER_PROJECTION;
export type SummaryMemberName = keyof Projection;

/** The summary every users response carries (legacy `meta_info`), as the projection decodes it. */
export type UserSummary = { [K in SummaryMemberName]: ReturnType<Projection[K]["decode"]> };

const MEMBERS = Object.entries(USER_PROJECTION) as [string, SummaryMember][];
const ALL_PARTS: Record<string, SummaryPartSql> = PARTS;
const PART_NAMES = Object.keys(PARTS) as SummaryPart[];

/**
 * Adds a member after the declared ones: a member of another build of this service, or of a test
 * that proves both transports serve what the projection declares. `sql` is its own select-list
 * entry (registration alias `r`; the part it makes bears the member's name); without it, it reads
 * the declared `parts`.
 */
export function addSummaryMember(
  name: string,
  definition: {
    sql?: { column: string; select: string };
    parts?: readonly SummaryPart[];
    decode: SummaryMember["decode"];
  },
): void {
  if (Object.hasOwn(USER_PROJECTION, name)) throw new Error(`summary member ${name} is declared already`);
  const parts = [...(definition.parts ?? [])];
  if (definition.sql) {
    const { column, select } = definition.sql;
    ALL_PARTS[name] = { columns: [column], select: () => select };
    PART_NAMES.push(name as SummaryPart);
    parts.push(name as SummaryPart);
  }
  const added: SummaryMember = { parts, decode: definition.decode };
  (USER_PROJECTION as Record<string, SummaryMember>)[name] = added;
  MEMBERS.push([name, added]);
  shapes.delete(MEMBERS);
}

/**
 * What a summary read decodes: the members asked for with the identity ones, and the parts they
 * read. A summary decoded for it holds those members only; the others are absent (undefined, not
 * zero), so its reader presents no more than it asked for. `null` wherever one is taken: every
 * member, as REST's `meta_info` and every read for the domain's own use need.
 */
export interface SummaryMembers {
  readonly parts: ReadonlySet<SummaryPart>;
  /** The members decoded, in the order a full summary holds them. */
  readonly decoded: readonly (readonly [string, SummaryMember])[];
}

/** The read of these members (null, or a name the projection does not declare: every member). */
export function summaryMembers(names: Iterable<string> | null): SummaryMembers | null {
  if (names === null) return null;
  const wanted = new Set<string>();
  for (const name of names) {
    if (!Object.hasOwn(USER_PROJECTION, name)) return null;
    wanted.add(name);
  }
  const decoded = MEMBERS.filter(([name, definition]) => definition.identity || wanted.has(name));
  const parts = new Set<SummaryPart>();
  for (const [, definition] of decoded) for (const part of definition.parts) parts.add(part);
  return { parts, decoded };
}

const partsOf = (members: SummaryMembers | null) => (members === null ? null : members.parts);

const readsPart = (parts: ReadonlySet<SummaryPart> | null, part: SummaryPart) => parts === null || parts.has(part);

/**
 * The parts a statement reading `parts` (null: all) selects, in select-list order; `listsApart`:
 * without the list parts (summaryListParts), which it reads as arms.
 */
const partsSelected = (parts: ReadonlySet<SummaryPart> | null, listsApart = false): SummaryPart[] =>
  PART_NAMES.filter(
    (part) =>
      readsPart(parts, part) &&
      !(part === "formCount" && readsPart(parts, "forms")) &&
      !(listsApart && ALL_PARTS[part].list),
  );

/**
 * The summary select list of what `members` read (null: every part); `listsApart`: without the
 * list parts, whose columns the caller fills from arms of the statement (summaryListParts).
 */
export function summarySelectSql(
  em: EntityManager,
  members: SummaryMembers | null = null,
  options: { listsApart?: boolean } = {},
): string {
  const listsApart = options.listsApart === true;
  const selected = partsSelected(partsOf(members), listsApart);
  const key = `${em.connection.options.type}:${selected.join(",")}`;
  let sql = selectLists.get(key);
  if (sql === undefined) {
    sql = [SUMMARY_IDENTITY_SQL, ...selected.map((part) => ALL_PARTS[part].select(em))].join(",\n       ");
    selectLists.set(key, sql);
  }
  return sql;
}

/** The parts `members` read (null: all) as text: two reads of the same parts read the same SQL. */
export const summaryPartsKey = (members: SummaryMembers | null): string => partsSelected(partsOf(members)).join(",");

/** How many columns summarySelectSql returns for the same arguments. */
export const summaryColumnCount = (members: SummaryMembers | null, options: { listsApart?: boolean } = {}): number =>
  IDENTITY_COLUMNS.length +
  partsSelected(partsOf(members), options.listsApart === true).reduce(
    (count, part) => count + ALL_PARTS[part].columns.length,
    0,
  );

/**
 * The list parts `members` read, as summarySelectSql leaves them out with `listsApart`: the
 * column each fills (with the array of its rows' objects, or null for none) and its list.
 */
export function summaryListParts(members: SummaryMembers | null): { column: string; list: ListSql }[] {
  return partsSelected(partsOf(members)).flatMap((part) => {
    const { list, columns } = ALL_PARTS[part];
    return list ? [{ column: columns[0], list }] : [];
  });
}

// Select lists by dialect and parts read, built once: a part's SQL depends on nothing else, and
// every summary read (each nested read, each page) would otherwise build the same text again.
const selectLists = new Map<string, string>();

/**
 * The joins of what `members` read (null: all) and of the tables a filter reads (`also`), in a
 * fixed order. `person` is "LEFT JOIN" where the registration itself is outer-joined.
 */
export function summaryJoinsSql(
  members: SummaryMembers | null,
  also: { person?: boolean; status?: boolean } = {},
  person: "JOIN" | "LEFT JOIN" = "JOIN",
): string {
  const parts = partsOf(members);
  const joins: string[] = [];
  if (readsPart(parts, "person") || also.person) joins.push(`${person} ${PERSON_JOIN.sql}`);
  if (readsPart(parts, "status") || also.status) joins.push(`LEFT JOIN ${STATUS_JOIN.sql}`);
  if (readsPart(parts, "admin")) joins.push(`LEFT JOIN ${PARTS.admin.join.sql}`);
  return joins.join("\n  ");
}

/** The columns a statement reading `parts` returns. */
const columnsRead = (parts: ReadonlySet<SummaryPart> | null): string[] => [
  ...IDENTITY_COLUMNS,
  ...partsSelected(parts).flatMap((part) => ALL_PARTS[part].columns),
];

/**
 * Summaries of a statement's rows, with the members `members` asks for (null: every member).
 * The columns are checked once per statement against the parts it reads.
 */
export function decodeSummaries(
  raw: readonly RawSummaryRow[],
  sql: string,
  members: SummaryMembers | null,
): UserSummary[] {
  if (raw.length === 0) return [];
  assertColumns(columnsRead(partsOf(members)), raw[0], sql);
  const decoded = members === null ? MEMBERS : members.decoded;
  const shape = shapeOf(decoded);
  const summaries: UserSummary[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) summaries[i] = decodeSummary(raw[i], decoded, shape);
  return summaries;
}

type Decoded = readonly (readonly [string, SummaryMember])[];

// An object holding the decoded members (as undefined), by member list: a summary starts as a
// copy of it, its storage the right size at once, instead of growing member by member (25 for a
// full summary), which left a trail of outgrown property stores per row.
const shapes = new WeakMap<Decoded, Readonly<Record<string, unknown>>>();
function shapeOf(decoded: Decoded): Readonly<Record<string, unknown>> {
  let shape = shapes.get(decoded);
  if (shape === undefined) {
    const made: Record<string, unknown> = {};
    for (const [name] of decoded) made[name] = undefined;
    shapes.set(decoded, (shape = made));
  }
  return shape;
}

// Typed as a whole summary: one decoded for some members holds those (SummaryMembers).
function decodeSummary(raw: RawSummaryRow, decoded: Decoded, shape: Readonly<Record<string, unknown>>): UserSummary {
  const summary: Record<string, unknown> = { ...shape };
  for (const [name, definition] of decoded) summary[name] = definition.decode(raw);
  return summary as UserSummary;
}

/** A whole summary decoded from a row that holds every column (summaryOfNewRegistration builds one). */
export const decodeWholeSummary = (raw: RawSummaryRow): UserSummary => decodeSummary(raw, MEMBERS, shapeOf(MEMBERS));
