import { z } from "zod";
import { describeCaller } from "../../domain/authorize";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent } from "../envelope/members";

const whoamiSchema = z.object({ group_id: asSent, doc: asSent });

/** POST /reg/api2/account/ (ours, not in the legacy interface): the calling key itself. */
export const accountActions: ActionTable = {
  whoami: defineAction({
    readOnly: true,
    schema: whoamiSchema,
    problemPaths: { groupId: "group_id" },
    async run(ctx) {
      const caller = describeCaller(ctx);
      return {
        success: true,
        api_id: caller.apiAccountId,
        api_user: caller.apiUser,
        organization_id: caller.organizationId,
        full_access: caller.operations === null && caller.groupIds === null,
        scopes: caller.operations ?? "all",
        group_ids: caller.groupIds ?? "all",
      };
    },
  }),
};
