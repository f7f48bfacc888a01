import { Arg, Authorized, Ctx, Mutation, Resolver, UseMiddleware } from "type-graphql";
import { addOwnProducts } from "../../domain/carts/add-product";
import { removeOwnCartLine } from "../../domain/carts/remove-cart-line";
import { endOwnSession, refreshOwnSession } from "../../domain/sessions/registrant-sessions";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS, withProblemPaths } from "../graphql-errors";
import { problemsInPayload } from "../input-problems";
import { AddMyProductInput, RemoveMyCartLineInput } from "../inputs/writes.input";
import { AddProductPayloadType, RemoveCartLinePayloadType } from "../types/payloads.type";
import { SessionRefreshType } from "../types/session.type";
import { userFromOutcome } from "./present";
import { cartEntriesOf } from "./writes.resolver";

/** What a registrant portal does with its session besides me and updateMe: its cart, logout, refresh. */
@Resolver()
export class PortalResolver {
  @Authorized("registrant")
  @Mutation(() => AddProductPayloadType, {
    description:
      "The signed-in registrant adds products to its own cart: the rules of addProduct, within what me.project.products offers. Needs Authorization: Bearer <session token>.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, AddProductPayloadType.rejected))
  async addMyProduct(
    @Arg("input", () => AddMyProductInput, { description: "The products to add to the session's own cart." })
    input: AddMyProductInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<AddProductPayloadType> {
    const { productList, rendering } = cartEntriesOf(input.productList);
    const outcome = await withProblemPaths(rendering, () => addOwnProducts(ctx.request, { productList }));
    ctx.loaders.clearAll();
    ctx.loaders.primeSummary(outcome.summary);
    return { user: userFromOutcome(outcome), cartIds: outcome.cartIds, notices: outcome.notices, problems: [] };
  }

  @Authorized("registrant")
  @Mutation(() => RemoveCartLinePayloadType, {
    description:
      "The signed-in registrant removes a line from its own cart: the rules of removeCartLine, and only a line of a product me.project.products offers it now. Needs Authorization: Bearer <session token>.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, RemoveCartLinePayloadType.rejected))
  async removeMyCartLine(
    @Arg("input", () => RemoveMyCartLineInput, { description: "The line to remove." }) input: RemoveMyCartLineInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<RemoveCartLinePayloadType> {
    const outcome = await removeOwnCartLine(ctx.request, { cartLineId: input.cartLineId });
    ctx.loaders.clearAll();
    ctx.loaders.primeSummary(outcome.summary);
    return { user: userFromOutcome(outcome), removedCartLineId: outcome.removedCartLineId, problems: [] };
  }

  @Authorized("registrant")
  @Mutation(() => Boolean, {
    description:
      "Ends the session (server-side, on every instance): its token is refused from now on and a WebSocket opened with it is closed at its next check. Answers true.",
  })
  async logout(@Ctx() ctx: GraphqlContext): Promise<boolean> {
    await endOwnSession(ctx.request);
    return true;
  }

  @Authorized("registrant")
  @Mutation(() => SessionRefreshType, {
    description:
      "Slides the session: it ends 12 hours from now, but never more than 7 days after it was opened. The token stays the same.",
  })
  async refreshSession(@Ctx() ctx: GraphqlContext): Promise<SessionRefreshType> {
    return refreshOwnSession(ctx.request);
  }
}
