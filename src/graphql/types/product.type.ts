import { GraphQLDateTime } from "graphql-scalars";
import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { MoneyScalar } from "../scalars/money.scalar";
import { Node } from "../nodes/node.interface";
import { useInstead } from "../inputs/renamed-members";

@GraphqlObjectType("ProductCategory", { implements: Node })
export class ProductCategoryType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int)
  categoryId: number;

  @Field(() => Int, { deprecationReason: useInstead("categoryId") })
  catId: number;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  topRemark: string | null;

  @Field(() => String, { nullable: true })
  bottomRemark: string | null;

  @Field(() => Int, { nullable: true, description: "Most units of the category per cart; null is unlimited." })
  quotaOrdered: number | null;

  @Field(() => Boolean, { description: "At most one cart line of the category's products." })
  interchange: boolean;

  @Field(() => Boolean, { description: "Stored and shown; not enforced yet." })
  mandatory: boolean;
}

@GraphqlObjectType("Product", { implements: Node })
export class ProductType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int)
  productId: number;

  @Field(() => Int, { deprecationReason: useInstead("productId") })
  pId: number;

  @Field(() => String)
  name: string;

  @Field(() => MoneyScalar)
  price: string;

  @Field(() => Int, { description: "1 event, 2 discount, 3 session holder, 4 session, 6 subscription, 7 merchandise." })
  baseProductType: number;

  @Field(() => Int, { description: "0 parent and child, 1 parent only, 2 child only." })
  productType: number;

  @Field(() => Int, { nullable: true })
  categoryId: number | null;

  @Field(() => Int, { nullable: true, deprecationReason: useInstead("categoryId") })
  catId: number | null;

  @Field(() => GraphQLDateTime, { nullable: true })
  startDate: Date | null;

  @Field(() => GraphQLDateTime, { nullable: true })
  endDate: Date | null;

  @Field(() => Boolean)
  onlyOne: boolean;

  @Field(() => Boolean)
  lockOnceFundsAllocated: boolean;

  @Field(() => String, { nullable: true })
  remarks: string | null;

  @Field(() => String, { nullable: true })
  location: string | null;

  @Field(() => String, { nullable: true })
  internalId: string | null;

  @Field(() => String, { nullable: true })
  misc1: string | null;

  @Field(() => String, { nullable: true })
  misc2: string | null;

  @Field(() => Int, { nullable: true, description: "A session's session holder." })
  parentProductId: number | null;

  @Field(() => Int, { nullable: true, deprecationReason: useInstead("parentProductId") })
  parentPId: number | null;
}
