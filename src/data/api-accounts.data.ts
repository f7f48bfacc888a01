import type { EntityManager } from "typeorm";
import { ApiAccount } from "../entities";
import { selectRows, type RowOf } from "./sql-rows";

/** The API account read model is the entity: id, organization, user name, token hashes, active flag. */
export type ApiAccountRecord = ApiAccount;

export async function findApiAccount(em: EntityManager, id: number): Promise<ApiAccountRecord | null> {
  return em.findOne(ApiAccount, { where: { id } });
}

// Reads for key management (`regapi org list`, `regapi api-key list`). Token hashes are never
// selected: nothing that lists keys can print one by mistake.

const ORGANIZATION_SUMMARY = {
  id: "int",
  name: "text",
  projects: "int",
  active_keys: "int",
} as const;
export type OrganizationSummaryRow = RowOf<typeof ORGANIZATION_SUMMARY>;

export function selectOrganizationSummaries(em: EntityManager): Promise<OrganizationSummaryRow[]> {
  return selectRows(
    em,
    ORGANIZATION_SUMMARY,
    `SELECT o.id, o.name,
            (SELECT COUNT(*) FROM project p WHERE p.organization_id = o.id) AS projects,
            (SELECT COUNT(*) FROM api_account a WHERE a.organization_id = o.id AND a.active = 1) AS active_keys
       FROM organization o
      ORDER BY o.id`,
  );
}

const API_KEY_LISTING = {
  id: "int",
  api_user: "text",
  active: "flag",
  created_at: "date",
  previous_token_expires_at: "dateOrNull",
  scope_operations: "textOrNull",
  scope_group_ids: "textOrNull",
} as const;
export type ApiKeyListingRow = RowOf<typeof API_KEY_LISTING>;

export function selectApiKeysOfOrganization(em: EntityManager, organizationId: number): Promise<ApiKeyListingRow[]> {
  return selectRows(
    em,
    API_KEY_LISTING,
    `SELECT id, api_user, active, created_at, previous_token_expires_at, scope_operations, scope_group_ids
       FROM api_account
      WHERE organization_id = ?
      ORDER BY id`,
    [organizationId],
  );
}
