import type { GraphQLResolveInfo } from "graphql";
import { Arg, Ctx, Info, Mutation, Resolver, UseMiddleware, Authorized } from "type-graphql";
import { createStatus } from "../../domain/statuses/statuses.service";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS } from "../graphql-errors";
import { problemsInPayload } from "../input-problems";
import { CreateStatusInput } from "../inputs/status-mutation.input";
import { CreateStatusPayloadType } from "../types/payloads.type";
import { presentStatus } from "../types/user.type";
import { projectAfterWrite } from "./project.resolver";

@Resolver()
export class StatusResolver {
  @Authorized("account")
  @Mutation(() => CreateStatusPayloadType, {
    description:
      "Creates a status in a project; a second one of the same name (case-insensitive) is a CONFLICT with extensions.statusId.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, CreateStatusPayloadType.rejected))
  async createStatus(
    @Arg("input", () => CreateStatusInput, { description: "The status to create." }) input: CreateStatusInput,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<CreateStatusPayloadType> {
    const status = await createStatus(ctx.request, {
      groupId: input.groupId,
      name: input.name,
      color: input.color,
      isExcluded: input.isExcluded,
    });
    ctx.loaders.clearAll();
    return {
      status: presentStatus(status, input.groupId),
      project: await projectAfterWrite(ctx, input.groupId, info),
      problems: [],
    };
  }
}
