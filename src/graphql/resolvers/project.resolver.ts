import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, Info, Int, Query, Resolver, Root } from "type-graphql";
import type { GraphQLResolveInfo } from "graphql";
import { getProject, listOrganizationProjects } from "../../domain/projects/projects.service";
import type { GraphqlContext } from "../context";
import { selectsField } from "../selection";
import { ProductCategoryType, ProductType } from "../types/product.type";
import { ProjectType } from "../types/project.type";
import { formatCents } from "../../common/money";
import { presentProjectListing } from "./present";

/** The wire `product_type` of a stored level. */
const PRODUCT_TYPE_OF_LEVEL: Record<string, number> = { all: 0, parent: 1, child: 2 };

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
    const listings = await listOrganizationProjects(ctx.request, {
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
    return presentProjectListing(
      await getProject(ctx.request, groupId, { withGroupTotals: selectsField(info, "groupTotals") }),
    );
  }

  @FieldResolver(() => [ProductCategoryType], { description: "The project's product categories, by catId." })
  async categories(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductCategoryType[]> {
    return (await ctx.loaders.categoriesOfProject.load(project.groupId)).map((row) => ({
      catId: row.id,
      name: row.name,
      topRemark: row.top_remark,
      bottomRemark: row.bottom_remark,
      quotaOrdered: row.quota_ordered,
      interchange: row.interchange,
      mandatory: row.mandatory,
    }));
  }

  @FieldResolver(() => [ProductType], { description: "The project's products (not private ones), by pId." })
  async products(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductType[]> {
    return (await ctx.loaders.productsOfProject.load(project.groupId)).map((row) => ({
      pId: row.id,
      name: row.name,
      price: formatCents(row.price_cents),
      baseProductType: row.base_type,
      productType: PRODUCT_TYPE_OF_LEVEL[row.level] ?? 0,
      catId: row.category_id,
      startDate: row.available_from,
      endDate: row.available_until,
      onlyOne: row.only_one,
      lockOnceFundsAllocated: row.lock_once_funds_allocated,
      remarks: row.remarks,
      location: row.location,
      internalId: row.internal_id,
      misc1: row.misc1,
      misc2: row.misc2,
      parentPId: row.parent_product_id,
    }));
  }

  @FieldResolver(() => Boolean, { description: "Family projects link children to a parent registration." })
  async isFamilySystem(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await ctx.loaders.projects.load(project.groupId))?.familySystem ?? false;
  }
}
