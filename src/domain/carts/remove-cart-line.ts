import { z } from "zod";
import { deleteCartLine, readCartLineForRemoval } from "../../data/carts.data";
import { lineAmountCents } from "../account-totals";
import { authorize } from "../authorize";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { requireRegistrant, type RequestContext } from "../context";
import { validationFailed, type Problem } from "../errors";
import { recordEvent } from "../events/record-event";
import { registrationLevel } from "../forms/form-rules";
import { resolveOwnedProject } from "../group-scope";
import { countOrder } from "../projects/project-counters";
import { inTransaction } from "../transaction";
import { counterBucketOf, requireRegisteredUser } from "../users/registration-lookup";
import type { UserOutcome } from "../users/user-commands";
import { loadUserSummaries } from "../users/user-summary";
import { isOfferedTo } from "./cart-rules";

// Removing one cart line (GraphQL removeCartLine for an API account, removeMyCartLine for a
// registrant session), under the rules of adding: the registrant may take out only what it may
// put in (a line of a product me.project.products offers it now, never a private product made for
// its cart by staff); and no one takes out a line of a product locked once funds are allocated
// (lock_once_funds_allocated) while the registration has payments. The order total and the
// project's counters drop by the line's amount; a cart.product_removed event says so.

export const RemoveCartLineCommand = z.object({ groupId: integerId, cloginId: integerId, cartLineId: integerId });

export interface RemoveCartLineOutcome extends UserOutcome {
  removedCartLineId: number;
}

const problem = (reason: Problem["reason"], message: string, value: number): Problem => ({
  path: ["cartLineId"],
  reason,
  value,
  message,
});

/** An API account removes a line of a user's cart. Throws FORBIDDEN, USER_NOT_FOUND or VALIDATION_FAILED. */
export async function removeCartLine(
  ctx: RequestContext,
  draft: CommandDraft<typeof RemoveCartLineCommand>,
): Promise<RemoveCartLineOutcome> {
  const cmd = parseCommand(RemoveCartLineCommand, draft);
  authorize(ctx, "users.add_product", { groupId: cmd.groupId });
  await resolveOwnedProject(ctx, cmd.groupId);
  return removeLine(ctx, cmd, { registrant: false });
}

/** A registrant session removes a line of its own cart, within what it may add. Throws VALIDATION_FAILED. */
export async function removeOwnCartLine(
  ctx: RequestContext,
  draft: { cartLineId: unknown },
): Promise<RemoveCartLineOutcome> {
  const me = requireRegistrant(ctx);
  const cmd = parseCommand(RemoveCartLineCommand, { groupId: me.groupId, cloginId: me.cloginId, ...draft });
  return removeLine(ctx, cmd, { registrant: true });
}

async function removeLine(
  ctx: RequestContext,
  cmd: z.output<typeof RemoveCartLineCommand>,
  caller: { registrant: boolean },
): Promise<RemoveCartLineOutcome> {
  return inTransaction(ctx, "users.remove_cart_line", async ({ em }) => {
    const now = new Date();
    // Locked as for adding: the cart and the payments hold still until the commit.
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId, { lock: true });
    const line = await readCartLineForRemoval(em, user.uid, cmd.cartLineId);
    if (!line)
      throw validationFailed([
        problem("NOT_AVAILABLE", `${cmd.cartLineId} is not a line of this user's cart`, cmd.cartLineId),
      ]);
    if (caller.registrant && !isOfferedTo(line.product, registrationLevel(user.parentCloginId), now))
      throw validationFailed([
        problem(
          "NOT_ALLOWED",
          `line ${line.id} holds product ${line.productId}, which this registrant may not add now (me.project.products): only staff may remove it`,
          cmd.cartLineId,
        ),
      ]);
    if (line.product.lockOnceFundsAllocated && line.paidCents > 0)
      throw validationFailed([
        problem(
          "NOT_ALLOWED",
          `line ${line.id} holds product ${line.productId}, which is locked once funds are allocated, and the registration has payments`,
          cmd.cartLineId,
        ),
      ]);
    await deleteCartLine(em, line.id);
    recordEvent(
      em,
      {
        type: "cart.product_removed",
        groupId: cmd.groupId,
        data: { clogin_id: cmd.cloginId, cart_id: line.id, p_id: line.productId, q: line.quantity },
      },
      now,
    );
    countOrder(em, cmd.groupId, counterBucketOf(user), -lineAmountCents(line.quantity, line.unitPriceCents));
    const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid)!;
    return {
      uid: user.uid,
      groupId: cmd.groupId,
      cloginId: cmd.cloginId,
      summary,
      notices: [],
      problems: [],
      removedCartLineId: line.id,
    };
  });
}
