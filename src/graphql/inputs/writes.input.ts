import { GraphQLJSONObject } from "graphql-scalars";
import { Field, InputType, Int } from "type-graphql";
import { RegistrantTargetInput } from "./registrant-target.input";
import { useInstead } from "./renamed-members";

// Inputs of create_child, set_status, add_product and the products endpoint. Members carry the
// domain commands' names and are passed as sent: the domain checks every rule, so GraphQL and REST
// report the same problems (here under `input.<member>`).

@InputType("CreateChildInput", {
  description: "A new child registration under a parent in a family project (users create_child).",
})
export class CreateChildInput {
  @Field(() => Int, { description: "The family project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The parent (or individual) registered in this family project." })
  connectedTo: number;

  @Field(() => Int, { nullable: true, description: "An existing person of your organization; omit for a new one." })
  cloginId?: number | null;

  @Field(() => String, { nullable: true, description: "Defaults to mainEmail; a child without either has no login." })
  username?: string | null;

  @Field(() => String, { description: "The child's password (stored as a hash, never returned).", nullable: true })
  password?: string | null;

  @Field(() => String, { nullable: true, description: "Optional for a child; validated when given." })
  mainEmail?: string | null;

  @Field(() => String, { description: "The child's first name.", nullable: true })
  firstName?: string | null;

  @Field(() => String, { description: "The child's last name.", nullable: true })
  lastName?: string | null;

  @Field(() => String, { description: "The child's organization name.", nullable: true })
  orgName?: string | null;

  @Field(() => String, { nullable: true, description: "YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC); default now." })
  applicationDate?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: "Field values, as in createUser." })
  values?: Record<string, unknown> | null;

  @Field(() => Boolean, {
    description: "Submit the forms the values belong to (form.submitted, triggers).",
    defaultValue: true,
  })
  submitForms: boolean;

  @Field(() => Boolean, { description: "Fire no send_email trigger for this creation.", defaultValue: false })
  disableEmailSending: boolean;
}

@InputType("SetStatusInput", { description: "The status to set on one user (users set_status)." })
export class SetStatusInput extends RegistrantTargetInput {
  @Field(() => Int, { description: "A status of the project; 0 removes the status." })
  statusId: number;
}

@InputType("CartEntryInput", {
  description: "Give productId or the deprecated pId, and quantity or the deprecated q; never both spellings.",
})
export class CartEntryInput {
  @Field(() => Int, {
    nullable: true,
    description: "A product of the project; omit for a private product (name, price).",
  })
  productId?: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of productId.",
    nullable: true,
    deprecationReason: useInstead("productId"),
  })
  pId?: number | null;

  @Field(() => Int, { nullable: true, description: "Required (or q): 1–999; cut to 1 for an only-one product." })
  quantity?: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of quantity.",
    nullable: true,
    deprecationReason: useInstead("quantity"),
  })
  q?: number | null;

  @Field(() => String, { description: "A remark stored on the cart line (at most 2000 characters).", nullable: true })
  productRemark?: string | null;

  @Field(() => String, { nullable: true, description: "Subscriptions (type 6) only, in dateStructure." })
  recurringStartDate?: string | null;

  @Field(() => String, { nullable: true, description: "Default mm-dd-yyyy." })
  dateStructure?: string | null;

  @Field(() => String, { nullable: true, description: "A private product's name (1–200 characters)." })
  name?: string | null;

  @Field(() => String, { nullable: true, description: "A private product's price, ≥ 0 with at most 2 decimals." })
  price?: string | null;
}

@InputType("AddProductInput", {
  description: "Products to add to one user's cart (users add_product), by an API account.",
})
export class AddProductInput extends RegistrantTargetInput {
  @Field(() => [CartEntryInput], { description: "1–50 entries, all added or none." })
  productList: CartEntryInput[];
}

@InputType("CreateProductInput", {
  description: "A new product of a project (products create), with the legacy rules of contract §7.",
})
export class CreateProductInput {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "1 event, 2 discount, 3 session holder, 4 session, 6 subscription, 7 merchandise." })
  baseProductType: number;

  @Field(() => String, { description: "The product's name." })
  productName: string;

  @Field(() => String, { description: "≥ 0 with at most 2 decimals; > 0 for a discount." })
  productPrice: string;

  @Field(() => Int, { nullable: true, description: "Required (or catId): a category of the project." })
  categoryId?: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of categoryId.",
    nullable: true,
    deprecationReason: useInstead("categoryId"),
  })
  catId?: number | null;

  @Field(() => Int, { nullable: true, description: "0 parent and child (default), 1 parent only, 2 child only." })
  productType?: number | null;

  @Field(() => String, { description: "First day it is offered.", nullable: true })
  productStartDate?: string | null;

  @Field(() => String, { description: "Last day it is offered (not before the start).", nullable: true })
  productEndDate?: string | null;

  @Field(() => String, { description: "Short remarks shown with it (at most 2000 characters).", nullable: true })
  productShortRemarks?: string | null;

  @Field(() => String, { description: "Where it takes place (at most 255 characters).", nullable: true })
  location?: string | null;

  @Field(() => String, { description: "The organization's own reference (at most 255 characters).", nullable: true })
  internalId?: string | null;

  @Field(() => String, { description: "Free text (at most 255 characters).", nullable: true })
  misc1?: string | null;

  @Field(() => String, { description: "Free text (at most 255 characters).", nullable: true })
  misc2?: string | null;

  @Field(() => Boolean, {
    description:
      "Once the registration has payments, a cart line of it is not removed (removeCartLine, removeMyCartLine).",
    nullable: true,
  })
  lockOnceFundsAllocated?: boolean | null;

  @Field(() => Boolean, {
    description: "A cart holds at most one unit of it: a larger quantity is cut to 1.",
    nullable: true,
  })
  onlyOne?: boolean | null;

  @Field(() => Int, { nullable: true, description: "A session's session holder." })
  parentProductId?: number | null;

  @Field(() => Int, {
    description: "Deprecated spelling of parentProductId.",
    nullable: true,
    deprecationReason: useInstead("parentProductId"),
  })
  parentPId?: number | null;
}

@InputType("CreateCategoryInput", { description: "A new product category of a project (products create_category)." })
export class CreateCategoryInput {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => String, { description: "The category's name." })
  categoryName: string;

  @Field(() => String, { description: "Text shown above the category (at most 2000 characters).", nullable: true })
  categoryTopRemark?: string | null;

  @Field(() => String, { description: "Text shown below the category (at most 2000 characters).", nullable: true })
  categoryBottomRemark?: string | null;

  @Field(() => Int, { nullable: true, description: "Most units of the category per cart; omit for no limit." })
  categoryQuotaOrdered?: number | null;

  @Field(() => Boolean, { description: "At most one cart line of the category's products.", nullable: true })
  interchangeCategory?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Stored and shown; not enforced yet." })
  mandatoryCategory?: boolean | null;
}

@InputType("AddMyProductInput", { description: "Products the signed-in registrant adds to its own cart." })
export class AddMyProductInput {
  @Field(() => [CartEntryInput], {
    description:
      "1–50 entries, all added or none; each a product of me.project.products (productId and quantity; no private product by name).",
  })
  productList: CartEntryInput[];
}

@InputType("RemoveCartLineInput", { description: "A line to remove from one user's cart, by an API account." })
export class RemoveCartLineInput extends RegistrantTargetInput {
  @Field(() => Int, { description: "The line (CartLine.cartLineId, as addProduct's cartIds gave it)." })
  cartLineId: number;
}

@InputType("RemoveMyCartLineInput", { description: "A line the signed-in registrant removes from its own cart." })
export class RemoveMyCartLineInput {
  @Field(() => Int, {
    description: "The line (CartLine.cartLineId of me.cartLines); one of a product me.project.products offers.",
  })
  cartLineId: number;
}
