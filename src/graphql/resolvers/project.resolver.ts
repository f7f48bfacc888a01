import {
  Arg,
  Args,
  ArgsType,
  Ctx,
  Field,
  FieldResolver,
  Info,
  Int,
  Query,
  Resolver,
  Root,
  Authorized,
} from "type-graphql";
import type { GraphQLResolveInfo } from "graphql";
import { validationFailed } from "../../domain/errors";
import { IsInt, IsOptional, Max, Min } from "class-validator";
import { getProject, listOrganizationProjects } from "../../domain/projects/projects.service";
import type { GraphqlContext } from "../context";
import { selectsField, selectsPath } from "../selection";
import { ProductCategoryType, ProductType } from "../types/product.type";
import { GroupTotalsType, ProjectType, TagConnectionType } from "../types/project.type";
import { FormType } from "../types/form.type";
import { presentStatus, StatusType } from "../types/user.type";
import { formsVisibleTo } from "../../domain/projects/project-catalogues";
import { productsVisibleTo } from "../../domain/products/product-reads";
import { decodeTagCursor, encodeTagCursor } from "../cursor";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../inputs/user-query.input";
import { presentCategory, presentForm, presentProduct, presentProjectListing, presentTag } from "./present";

@ArgsType()
export class ProjectsArgs {
  @Field(() => Boolean, { defaultValue: false, description: "Add archived projects to the others." })
  withArchived: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Only archived projects (wins over withArchived)." })
  onlyArchived: boolean;
}

@ArgsType()
export class TagsArgs {
  @Field(() => Int, {
    nullable: true,
    description: `Forward page size, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither first nor last is given.`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  first?: number | null;

  @Field(() => String, {
    nullable: true,
    description: "A cursor (e.g. the endCursor of the previous page): tags after it.",
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Backward page size, 1 to ${MAX_PAGE_SIZE}: the last tags before \`before\` (or of the list).`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  last?: number | null;

  @Field(() => String, {
    nullable: true,
    description: "A cursor (e.g. the startCursor of the next page): tags before it.",
  })
  before?: string | null;
}

/**
 * The project a create mutation's payload returns (createStatus, createProduct, createCategory),
 * read after the write and only when the payload selects it: its lists then hold what was created.
 */
export async function projectAfterWrite(
  ctx: GraphqlContext,
  groupId: number,
  info: GraphQLResolveInfo,
): Promise<ProjectType | null> {
  if (!selectsField(info, "project")) return null;
  ctx.loaders.clearAll();
  const listing = await getProject(ctx.request, groupId, {
    withGroupTotals: selectsPath(info, ["project", "groupTotals"]),
  });
  return presentProjectListing(listing);
}

@Resolver(() => ProjectType)
export class ProjectResolver {
  @Authorized("account")
  @Query(() => [ProjectType], {
    description: "Your organization's projects by groupId; non-archived ones unless asked otherwise.",
  })
  async projects(
    @Args() args: ProjectsArgs,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectType[]> {
    const listings = await listOrganizationProjects(ctx.request, {
      ...args,
      withGroupTotals: selectsField(info, "groupTotals"),
    });
    return listings.map(presentProjectListing);
  }

  @Authorized("account")
  @Query(() => ProjectType, {
    nullable: true,
    description:
      "A project of your organization (FORBIDDEN for any other id, as for a missing one); null with its error, so the query's other fields keep their data.",
  })
  async project(
    @Arg("groupId", () => Int, { description: "The project (group_id)." }) groupId: number,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectType | null> {
    return presentProjectListing(
      await getProject(ctx.request, groupId, { withGroupTotals: selectsField(info, "groupTotals") }),
    );
  }

  // The totals count every registration of the project: not a registrant's to read.
  @Authorized("account")
  @FieldResolver(() => GroupTotalsType, {
    nullable: true,
    description:
      "Totals over the project's registrations (computed only when selected; null under User.project); null with FORBIDDEN for a registrant session.",
  })
  groupTotals(@Root() project: ProjectType): GroupTotalsType | null {
    return project.groupTotals;
  }

  @Authorized("account")
  @FieldResolver(() => [StatusType], {
    nullable: true,
    description:
      "The project's statuses in creation order (a status picker); null with FORBIDDEN for a registrant session.",
  })
  async statuses(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<StatusType[]> {
    return (await ctx.loaders.statusesOfProject.load(project.groupId)).map((status) =>
      presentStatus(status, project.groupId),
    );
  }

  @FieldResolver(() => [FormType], {
    description:
      "The project's forms in form order; for a registrant session only the forms its registration may fill (no admin-only forms, its level's and every level's).",
  })
  async forms(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<FormType[]> {
    return formsVisibleTo(ctx.request, await ctx.loaders.formsOfProject.load(project.groupId)).map(presentForm);
  }

  @Authorized("account")
  @FieldResolver(() => TagConnectionType, {
    nullable: true,
    description:
      "A page of the project's tags in id order (forward: first/after; backward: last/before), with totalCount; null with FORBIDDEN for a registrant session.",
  })
  async tags(
    @Root() project: ProjectType,
    @Args() args: TagsArgs,
    @Ctx() ctx: GraphqlContext,
  ): Promise<TagConnectionType> {
    if (args.first != null && args.last != null)
      throw validationFailed([
        { path: ["last"], reason: "CONFLICTING_MEMBERS", message: "and first page in opposite directions; give one" },
      ]);
    const afterTagId = args.after == null ? null : decodeTagCursor(args.after);
    const beforeTagId = args.before == null ? null : decodeTagCursor(args.before, "before");
    const backward = args.last != null || (args.before != null && args.first == null);
    const page = await ctx.loaders.tagPages.load({
      groupId: project.groupId,
      size: (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE,
      afterTagId,
      beforeTagId,
      backward,
    });
    const nodes = page.tags.map((tag) => presentTag(tag, project.groupId));
    const edges = nodes.map((node) => ({ cursor: encodeTagCursor(node.tagId), node }));
    return {
      groupId: project.groupId,
      edges,
      nodes,
      pageInfo: {
        // Past a cursor there are tags beyond it; toward the page's far end, what the read saw.
        hasNextPage: backward ? beforeTagId != null : page.hasNextPage,
        hasPreviousPage: backward ? page.hasNextPage : afterTagId != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
  }

  @FieldResolver(() => [ProductCategoryType], { description: "The project's product categories, by categoryId." })
  async categories(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductCategoryType[]> {
    return (await ctx.loaders.categoriesOfProject.load(project.groupId)).map((row) =>
      presentCategory(row, project.groupId),
    );
  }

  @FieldResolver(() => [ProductType], {
    description:
      "The project's products (not private ones), by productId; for a registrant session only those it may add to its cart now (its level's, available today).",
  })
  async products(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductType[]> {
    const rows = await ctx.loaders.productsOfProject.load(project.groupId);
    return productsVisibleTo(ctx.request, rows, new Date()).map((row) => presentProduct(row, project.groupId));
  }

  @FieldResolver(() => Boolean, { description: "Family projects link children to a parent registration." })
  async isFamilySystem(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await ctx.loaders.projects.load(project.groupId))?.familySystem ?? false;
  }
}

@Resolver(() => TagConnectionType)
export class TagConnectionResolver {
  @FieldResolver(() => Int, { description: "How many tags the project has (every page the same)." })
  async totalCount(@Root() connection: TagConnectionType, @Ctx() ctx: GraphqlContext): Promise<number> {
    return ctx.loaders.tagCounts.load(connection.groupId);
  }
}
