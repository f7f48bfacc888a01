import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { GraphQLDateTime } from "graphql-scalars";
import { MoneyScalar } from "../scalars/money.scalar";
import { Node } from "../nodes/node.interface";

@GraphqlObjectType("GroupTotals", { description: "Totals over a project's registrations." })
export class GroupTotalsType {
  @Field(() => Int)
  totalUsers: number;

  @Field(() => Int, { description: "Registrations whose status is not excluding." })
  totalActiveUsers: number;

  @Field(() => MoneyScalar)
  totalOrder: string;

  @Field(() => MoneyScalar)
  totalPaid: string;

  @Field(() => MoneyScalar)
  totalBalance: string;
}

@GraphqlObjectType("Project", {
  description: "A registration project; groupId is the legacy group_id, id its Node id.",
  implements: Node,
})
export class ProjectType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int)
  groupId: number;

  @Field(() => String)
  name: string;

  @Field(() => String, { description: "ISO 4217 code." })
  currency: string;

  @Field(() => GraphQLDateTime)
  createdAt: Date;

  @Field(() => Boolean)
  isArchived: boolean;

  @Field(() => GroupTotalsType, {
    nullable: true,
    description: "Totals over the project's registrations (computed only when selected).",
  })
  groupTotals: GroupTotalsType | null;
}
