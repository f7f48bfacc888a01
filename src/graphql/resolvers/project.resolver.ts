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
import { getProject, listOrganizationProjects } from "../../domain/projects/projects.service";
import type { GraphqlContext } from "../context";
import { selectsField } from "../selection";
import { ProductCategoryType, ProductType } from "../types/product.type";
import { ProjectType } from "../types/project.type";
import { presentCategory, presentProduct, presentProjectListing } from "./present";

@ArgsType()
export class ProjectsArgs {
  @Field(() => Boolean, { defaultValue: false, description: "Add archived projects to the others." })
  withArchived: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Only archived projects (wins over withArchived)." })
  onlyArchived: boolean;
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

  @FieldResolver(() => [ProductCategoryType], { description: "The project's product categories, by categoryId." })
  async categories(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductCategoryType[]> {
    return (await ctx.loaders.categoriesOfProject.load(project.groupId)).map((row) =>
      presentCategory(row, project.groupId),
    );
  }

  @FieldResolver(() => [ProductType], { description: "The project's products (not private ones), by productId." })
  async products(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<ProductType[]> {
    return (await ctx.loaders.productsOfProject.load(project.groupId)).map((row) =>
      presentProduct(row, project.groupId),
    );
  }

  @FieldResolver(() => Boolean, { description: "Family projects link children to a parent registration." })
  async isFamilySystem(@Root() project: ProjectType, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await ctx.loaders.projects.load(project.groupId))?.familySystem ?? false;
  }
}
