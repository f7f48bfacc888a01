import { presentTag } from "../resolvers/present";
import { fromSummary, presentStatus } from "./user.type";

/**
 * The User fields that present a summary member, one line each (as META_INFO_FIELDS for
 * MetaInfo): what a selection of them reads derives from here (summary-selection.ts).
 */
export const USER_SUMMARY_FIELDS = {
  name: fromSummary("name"),
  status: fromSummary("status", (status, summary) => status && presentStatus(status, summary.groupId)),
  tags: fromSummary("tags", (tags, summary) => tags.map((tag) => presentTag(tag, summary.groupId))),
};
