import { z } from "zod";
import type { RequestContext } from "../../domain/context";
import { getUserInfo } from "../../domain/users/user-details";
import { UserInfoCommand, UserListCommand } from "../../domain/users/read-commands";
import { getUserList, type ListedUser } from "../../domain/users/user-list";
import type { DetailSelection } from "../../domain/users/user-details";
import type { UserSummary } from "../../domain/users/user-summary";
import type { PathNames } from "../../http/problem-paths";
import { formatCents } from "../../common/money";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent, wireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentDetailsDoc } from "../presenters/user-details-envelope";
import { presentMetaInfo, presentUserInfo } from "../presenters/user-envelope";

// users get_user_list and get_info (contract §11, §12, §18): reads; one domain call each. The
// domain commands (src/domain/users/read-commands.ts) check every member.

const LIST_OPTIONS = [
  "with_excluded",
  "only_excluded",
  "only_parents",
  "only_children",
  "return_families",
  "starting_position",
  "modified_since",
] as const;

const LIST_PATHS: PathNames = {
  groupId: "group_id",
  withExcluded: "doc.with_excluded",
  onlyExcluded: "doc.only_excluded",
  onlyParents: "doc.only_parents",
  onlyChildren: "doc.only_children",
  returnFamilies: "doc.return_families",
  startingPosition: "doc.starting_position",
  modifiedSince: "doc.modified_since",
  selectors: "doc",
};

const INFO_PATHS: PathNames = { groupId: "group_id", cloginId: "clogin_id", selectors: "doc" };

const getUserListSchema = z.object({
  group_id: asSent,
  doc: wireDoc.nullish(),
  mark_forms_complete: refusedOutsideUpdate,
});

const getInfoSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  doc: wireDoc.nullish(),
  mark_forms_complete: refusedOutsideUpdate,
});

const summaryRecord = (summary: UserSummary) => ({
  user_info: presentUserInfo(summary),
  meta_info: presentMetaInfo(summary),
});

function presentRecords(
  records: ListedUser[],
  keys: string[],
  shape: { onlyChildren: boolean; returnFamilies: boolean; modifiedSince: Date | null },
) {
  const record = (entry: ListedUser) => ({
    ...summaryRecord(entry.summary),
    ...(entry.details ? { doc: presentDetailsDoc(entry.details, keys) } : {}),
  });
  if (shape.onlyChildren) return { users: [], children: records.map(record) };
  // Changes since: each changed registration is a record of its own, in the page's (updated_at,
  // uid) order; parents and individuals in users, children in children.
  if (shape.modifiedSince) {
    return {
      users: records.filter((entry) => entry.summary.parentCloginId === null).map(record),
      children: records.filter((entry) => entry.summary.parentCloginId !== null).map(record),
    };
  }
  if (shape.returnFamilies) {
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

export const userReadActions: ActionTable = {
  get_user_list: defineAction({
    readOnly: true,
    schema: getUserListSchema,
    command: UserListCommand,
    problemPaths: LIST_PATHS,
    async run(ctx: RequestContext, input) {
      const doc = input.doc ?? {};
      const selectors = Object.fromEntries(
        Object.entries(doc).filter(([key]) => !(LIST_OPTIONS as readonly string[]).includes(key)),
      );
      const { page, command, selection } = await getUserList(ctx, {
        groupId: input.group_id,
        withExcluded: doc.with_excluded,
        onlyExcluded: doc.only_excluded,
        onlyParents: doc.only_parents,
        onlyChildren: doc.only_children,
        returnFamilies: doc.return_families,
        startingPosition: doc.starting_position,
        modifiedSince: doc.modified_since,
        selectors,
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
        ...presentRecords(page.records, Object.keys(selectors), command),
        ...(notices.length > 0 ? { notices } : {}),
      };
    },
  }),

  get_info: defineAction({
    readOnly: true,
    schema: getInfoSchema,
    command: UserInfoCommand,
    problemPaths: INFO_PATHS,
    async run(ctx: RequestContext, input) {
      const outcome = await getUserInfo(ctx, {
        groupId: input.group_id,
        cloginId: input.clogin_id,
        selectors: input.doc ?? {},
      });
      return {
        success: true,
        msg: "User info.",
        ...(outcome.keys.length > 0 ? { doc: presentDetailsDoc(outcome.details, outcome.keys) } : {}),
        ...(outcome.notices.length > 0 ? { notices: outcome.notices } : {}),
        user_info: presentUserInfo(outcome.summary),
        meta_info: presentMetaInfo(outcome.summary),
      };
    },
  }),
};
