import { z } from "zod";
import type { RequestContext } from "../../domain/context";
import { validationFailed } from "../../domain/errors";
import type { ExclusionFilter } from "../../data/user-list.data";
import { getUserInfo, readDetailSelection, type DetailSelection } from "../../domain/users/user-details";
import { listUsers, type ListedUser } from "../../domain/users/user-list";
import { presentDetailsDoc } from "../presenters/user-details-envelope";
import type { UserSummary } from "../../domain/users/user-summary";
import { formatCents } from "../../shared/money";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { wireDoc, wireInteger } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentMetaInfo, presentUserInfo } from "../presenters/user-envelope";

// users get_user_list and get_info (contract §11, §12, §18): reads; one domain call each.

const FLAG_WORDS = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  [1, true],
  [0, false],
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

/** A doc flag with the leniency of contract §17: true/false, 1/0, "true"/"false", "1"/"0". */
function docFlag(doc: Record<string, unknown>, key: string, problems: { path: string; message: string }[]): boolean {
  const value = doc[key];
  if (value === undefined || value === null) return false;
  const flag = FLAG_WORDS.get(value);
  if (flag === undefined) {
    problems.push({ path: `doc.${key}`, message: `must be true or false (or 1/0), got ${JSON.stringify(value)}` });
    return false;
  }
  return flag;
}

const LIST_OPTIONS = new Set([
  "with_excluded",
  "only_excluded",
  "only_parents",
  "only_children",
  "return_families",
  "starting_position",
]);

export interface ListOptions {
  exclusion: ExclusionFilter;
  onlyParents: boolean;
  onlyChildren: boolean;
  returnFamilies: boolean;
  startingPosition: number;
  /** The other doc keys: get_info selectors answered per record. */
  selectors: Record<string, unknown>;
}

/** Reads the get_user_list options of `doc`; every bad member is reported at once. */
export function readListOptions(doc: Record<string, unknown>): ListOptions {
  const problems: { path: string; message: string }[] = [];
  const withExcluded = docFlag(doc, "with_excluded", problems);
  const onlyExcluded = docFlag(doc, "only_excluded", problems);
  const onlyParents = docFlag(doc, "only_parents", problems);
  const onlyChildren = docFlag(doc, "only_children", problems);
  const returnFamilies = docFlag(doc, "return_families", problems);
  let startingPosition = 0;
  const position = doc.starting_position;
  if (position !== undefined && position !== null) {
    const parsed = typeof position === "string" && /^\d{1,15}$/.test(position) ? Number(position) : position;
    if (typeof parsed === "number" && Number.isSafeInteger(parsed) && parsed >= 0) startingPosition = parsed;
    else
      problems.push({
        path: "doc.starting_position",
        message: `must be an integer of 0 or more (a zero-based position in the list), got ${JSON.stringify(position)}`,
      });
  }
  if (onlyParents && onlyChildren) {
    problems.push({ path: "doc.only_children", message: "cannot be combined with only_parents" });
  }
  if (problems.length > 0) {
    const first = problems[0];
    throw validationFailed(`Invalid get_user_list options: ${first.path} ${first.message}.`, problems);
  }
  const selectors = Object.fromEntries(Object.entries(doc).filter(([key]) => !LIST_OPTIONS.has(key)));
  return {
    exclusion: onlyExcluded ? "only_excluded" : withExcluded ? "with_excluded" : "without_excluded",
    onlyParents,
    onlyChildren,
    returnFamilies,
    startingPosition,
    selectors,
  };
}

const getUserListSchema = z.object({
  action: z.literal("get_user_list"),
  group_id: wireInteger,
  doc: wireDoc.nullish(),
  mark_forms_complete: refusedOutsideUpdate,
});

const summaryRecord = (summary: UserSummary) => ({
  user_info: presentUserInfo(summary),
  meta_info: presentMetaInfo(summary),
});

function presentRecords(records: ListedUser[], options: ListOptions) {
  const keys = Object.keys(options.selectors);
  const record = (entry: ListedUser) => ({
    ...summaryRecord(entry.summary),
    ...(entry.details ? { doc: presentDetailsDoc(entry.details, keys) } : {}),
  });
  if (options.onlyChildren) return { users: [], children: records.map(record) };
  if (options.returnFamilies) {
    return {
      users: records.map((entry) => ({ ...record(entry), children: entry.children.map(record) })),
      children: [],
    };
  }
  const children = records.flatMap((entry) => entry.children).sort((a, b) => a.summary.uid - b.summary.uid);
  return { users: records.map(record), children: children.map(record) };
}

/** Key problems once, and each record's own (a field its forms do not hold) with its clogin_id. */
function listNotices(records: ListedUser[], selection: DetailSelection): string[] {
  const notices = [...selection.notices];
  const each = (entry: ListedUser) => {
    for (const notice of entry.details?.notices ?? []) notices.push(`clogin_id ${entry.summary.cloginId}: ${notice}`);
  };
  for (const entry of records) {
    each(entry);
    entry.children.forEach(each);
  }
  return notices;
}

const getInfoSchema = z.object({
  action: z.literal("get_info"),
  group_id: wireInteger,
  clogin_id: wireInteger,
  doc: wireDoc.nullish(),
  mark_forms_complete: refusedOutsideUpdate,
});

export const userReadActions: ActionTable = {
  get_user_list: defineAction({
    schema: getUserListSchema,
    async run(ctx: RequestContext, input) {
      const options = readListOptions(input.doc ?? {});
      const selection = readDetailSelection(options.selectors);
      const page = await listUsers(ctx, {
        groupId: input.group_id,
        exclusion: options.exclusion,
        onlyParents: options.onlyParents,
        onlyChildren: options.onlyChildren,
        startingPosition: options.startingPosition,
        selection,
      });
      const notices = listNotices(page.records, selection);
      return {
        success: true,
        msg: "User list.",
        total_users: page.totalUsers,
        records_per_page: page.recordsPerPage,
        starting_position: page.startingPosition,
        next_starting_position: page.nextStartingPosition,
        totals: {
          total_users: String(page.totals.totalUsers),
          total_active_users: String(page.totals.totalActiveUsers),
          total_order: formatCents(page.totals.totalOrderCents),
          total_paid: formatCents(page.totals.totalPaidCents),
          total_balance: formatCents(page.totals.totalOrderCents - page.totals.totalPaidCents),
        },
        ...presentRecords(page.records, options),
        ...(notices.length > 0 ? { notices } : {}),
      };
    },
  }),

  get_info: defineAction({
    schema: getInfoSchema,
    async run(ctx: RequestContext, input) {
      const doc = input.doc ?? {};
      const outcome = await getUserInfo(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        selection: readDetailSelection(doc),
      });
      return {
        success: true,
        msg: "User info.",
        ...(Object.keys(doc).length > 0 ? { doc: presentDetailsDoc(outcome.details, Object.keys(doc)) } : {}),
        ...(outcome.notices.length > 0 ? { notices: outcome.notices } : {}),
        user_info: presentUserInfo(outcome.summary),
        meta_info: presentMetaInfo(outcome.summary),
      };
    },
  }),
};
