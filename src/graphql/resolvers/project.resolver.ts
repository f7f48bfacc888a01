import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, Info, Int, Query, Resolver, Root } from "type-graphql";
import type { GraphQLResolveInfo } from "graphql";
import { requirePrincipal } from "../../domain/context";
import { listProjects } from "../../domain/projects/projects.service";
import { readFirstProjectId } from "../../domain/users/user-reads";
import type { GraphqlContext } from "../context";
import { selectsField } from "../selection";
import { ProjectType } from "../types/project.type";
import { presentProjectListing } from "./present";

@ArgsType()
export class ProjectsArgs {
  @Field(() => Boolean, { defaultValue: false, description: "Add archived projects to the others." })
  withArchived: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Only archived projects (wins over withArchived)." })
  onlyArchived: boolean;
}

@Resolver(() => ProjectType)
export class ProjectResolver {
  @Query(() => [ProjectType], {
    description: "Your organization's projects by groupId; non-archived ones unless asked otherwise.",
  })
  async projects(
    @Args() args: ProjectsArgs,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectType[]> {
    const anchor = await readFirstProjectId(ctx.request.em, requirePrincipal(ctx.request).organizationId);
    if (anchor === null) return [];
    const listings = await listProjects(ctx.request, {
      groupId: anchor,
      ...args,
      withGroupTotals: selectsField(info, "groupTotals"),
    });
    return listings.map(presentProjectListing);
  }

  @Query(() => ProjectType, {
    description: "A project of your organization (FORBIDDEN for any other id, as for a missing one).",
  })
  async project(
    @Arg("groupId", () => Int) groupId: number,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectType> {
    // listProjects checks that the organization owns groupId (FORBIDDEN otherwise), so it is listed.
    const listings = await listProjects(ctx.request, {
      groupId,
      withArchived: true,
      onlyArchived: false,
      withGroupTotals: selectsField(info, "groupTotals"),
    });
    const listing = listings.find((entry) => entry.id === groupId);
    if (!listing) throw new Error(`listProjects did not list its own group ${groupId}`);
    return presentProjectListing(listing);
  }

  @FieldResolver(() => Boolean, { description: "Family projects link children to a parent registration." })
  async isFamilySystem(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await ctx.loaders.projects.load(project.groupId))?.familySystem ?? false;
  }
}
