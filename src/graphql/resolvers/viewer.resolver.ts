import { Ctx, Query, Resolver, Authorized } from "type-graphql";
import { describeCaller } from "../../domain/authorize";
import type { GraphqlContext } from "../context";
import { ViewerType } from "../types/viewer.type";

@Resolver()
export class ViewerResolver {
  @Authorized("account")
  @Query(() => ViewerType, {
    description: "The calling API key and its scope (REST: account whoami). Needs no scope of its own.",
  })
  viewer(@Ctx() ctx: GraphqlContext): ViewerType {
    const caller = describeCaller(ctx.request);
    return {
      apiId: caller.apiAccountId,
      apiUser: caller.apiUser,
      organizationId: caller.organizationId,
      fullAccess: caller.operations === null && caller.groupIds === null,
      scopes: caller.operations ? [...caller.operations] : null,
      groupIds: caller.groupIds ? [...caller.groupIds] : null,
    };
  }
}
