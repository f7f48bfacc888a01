import { GraphQLJSONObject } from "graphql-scalars";
import { Arg, Ctx, Int, Mutation, Query, Resolver, UseMiddleware, Authorized } from "type-graphql";
import { erasePerson, exportPerson } from "../../domain/persons/person-data";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS } from "../graphql-errors";
import { problemsInPayload } from "../input-problems";
import { ErasePersonInput, ErasePersonPayloadType } from "../types/person-data.type";

@Resolver()
export class PersonDataResolver {
  @Authorized("account")
  @Query(() => GraphQLJSONObject, {
    description:
      "Everything your organization holds about one person (clogin_id), across its projects, as one JSON document (REST: persons export). Needs the scope persons.export.",
  })
  personExport(
    @Arg("groupId", () => Int, { description: "Any project of your organization." }) groupId: number,
    @Arg("cloginId", () => Int, { description: "The person (clogin_id)." }) cloginId: number,
    @Ctx() ctx: GraphqlContext,
  ): Promise<Record<string, unknown>> {
    return exportPerson(ctx.request, { groupId, cloginId });
  }

  @Authorized("account")
  @Mutation(() => ErasePersonPayloadType, {
    description:
      "Erases a person across your organization's projects in one transaction; cart lines and payments keep their amounts without identity (REST: persons erase). Needs the scope persons.erase.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, ErasePersonPayloadType.rejected))
  async erasePerson(
    @Arg("input", () => ErasePersonInput, { description: "The person to erase." }) input: ErasePersonInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<ErasePersonPayloadType> {
    const erasure = await erasePerson(ctx.request, { groupId: input.groupId, cloginId: input.cloginId });
    ctx.loaders.clearAll();
    const counts = erasure.erased;
    return {
      cloginId: erasure.cloginId,
      groupIds: erasure.groupIds,
      erased: { ...counts, emailsSent: counts.outboxEmails },
      problems: [],
    };
  }
}
