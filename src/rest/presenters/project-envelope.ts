import type { ProjectListing, ProjectListQuery } from "../../domain/projects/projects.service";
import { formatUtcDateTime } from "../../common/dates";
import { formatCents } from "../../common/money";

/** A legacy project record (contract §7.4): every value a string; `_excluded` "1" for an archived project. */
export function presentProject(project: ProjectListing) {
  return {
    group_id: String(project.id),
    group_name: project.name,
    group_currency: project.currency,
    creation_date: formatUtcDateTime(project.createdAt),
    _excluded: project.archived ? "1" : "0",
    ...(project.totals
      ? {
          group_totals: {
            total_users: String(project.totals.totalUsers),
            total_active_users: String(project.totals.totalActiveUsers),
            total_order: formatCents(project.totals.totalOrderCents),
            total_paid: formatCents(project.totals.totalPaidCents),
            total_balance: formatCents(project.totals.totalBalanceCents),
          },
        }
      : {}),
  };
}

/** Legacy `get_project_list` answer (contract §7.4): the records, then the three flags echoed as booleans. */
export function presentProjectList(projects: ProjectListing[], query: ProjectListQuery) {
  return {
    projects: projects.map(presentProject),
    success: true,
    only_archived: query.onlyArchived,
    with_archived: query.withArchived,
    with_group_totals: query.withGroupTotals,
  };
}
