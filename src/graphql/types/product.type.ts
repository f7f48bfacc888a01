import { GraphQLDateTime } from "graphql-scalars";
import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { MoneyScalar } from "../scalars/money.scalar";
import { Node } from "../nodes/node.interface";
import { useInstead } from "../inputs/renamed-members";

@GraphqlObjectType("ProductCategory", {
  description: "A category of a project's products, with its cart rules (quota, interchange).",
  implements: Node,
})
export class ProductCategoryType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy category id (cat_id)." })
  categoryId: number;

  @Field(() => Int, { description: "Deprecated spelling of categoryId.", deprecationReason: useInstead("categoryId") })
  catId: number;

  @Field(() => String, { description: "The category's name." })
  name: string;

  @Field(() => String, { description: "Text shown above the category.", nullable: true })
  topRemark: string | null;

  @Field(() => String, { description: "Text shown below the category.", nullable: true })
  bottomRemark: string | null;

  @Field(() => Int, { nullable: true, description: "Most units of the category per cart; null is unlimited." })
  quotaOrdered: number | null;

  @Field(() => Boolean, { description: "At most one cart line of the category's products." })
  interchange: boolean;

  @Field(() => Boolean, { description: "Stored and shown; not enforced yet." })
  mandatory: boolean;
}

@GraphqlObjectType("Product", {
  description: "A product of a project's catalogue, as add_product sells it.",
  implements: Node,
})
export class ProductType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy product id (p_id), as addProduct takes it." })
  productId: number;

  @Field(() => Int, { description: "Deprecated spelling of productId.", deprecationReason: useInstead("productId") })
  pId: number;

  @Field(() => String, { description: "The product's name." })
  name: string;

  @Field(() => MoneyScalar, { description: "The price of one unit." })
  price: string;

  @Field(() => Int, { description: "1 event, 2 discount, 3 session holder, 4 session, 6 subscription, 7 merchandise." })
  baseProductType: number;

  @Field(() => Int, { description: "0 parent and child, 1 parent only, 2 child only." })
  productType: number;

  @Field(() => Int, { description: "The product's category, if any.", nullable: true })
  categoryId: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of categoryId.",
    nullable: true,
    deprecationReason: useInstead("categoryId"),
  })
  catId: number | null;

  @Field(() => GraphQLDateTime, { description: "First day it is offered; null: no start.", nullable: true })
  startDate: Date | null;

  @Field(() => GraphQLDateTime, { description: "Last day it is offered; null: no end.", nullable: true })
  endDate: Date | null;

  @Field(() => Boolean, { description: "A cart holds at most one unit of it." })
  onlyOne: boolean;

  @Field(() => Boolean, {
    description:
      "Once the registration has payments, a cart line of it is not removed (removeCartLine, removeMyCartLine).",
  })
  lockOnceFundsAllocated: boolean;

  @Field(() => String, { description: "Short remarks shown with it.", nullable: true })
  remarks: string | null;

  @Field(() => String, { description: "Where it takes place.", nullable: true })
  location: string | null;

  @Field(() => String, { description: "The organization's own reference.", nullable: true })
  internalId: string | null;

  @Field(() => String, { description: "Free text.", nullable: true })
  misc1: string | null;

  @Field(() => String, { description: "Free text.", nullable: true })
  misc2: string | null;

  @Field(() => Int, { nullable: true, description: "A session's session holder." })
  parentProductId: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of parentProductId.",
    nullable: true,
    deprecationReason: useInstead("parentProductId"),
  })
  parentPId: number | null;
}
