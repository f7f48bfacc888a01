import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { GraphQLDateTime } from "graphql-scalars";
import type { SummaryMemberName, UserSummary } from "../../domain/users/user-summary";
import { formatCents } from "../../common/money";
import { MoneyScalar } from "../scalars/money.scalar";
import { EmailDeliveryStatusEnum, EmailOriginEnum } from "./enums.type";
import type { OutboxState } from "../../entities/outbox-email.entity";
import { FormFieldType } from "./form.type";
import { encodeNodeId } from "../nodes/node-id";
import { Node } from "../nodes/node.interface";

@GraphqlObjectType("Status", {
  description: "A project's registration status; an excluding one takes users out of active counts.",
  implements: Node,
})
export class StatusType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy status_id." })
  statusId: number;

  @Field(() => String, { description: "The status's name." })
  name: string;

  @Field(() => String, { description: "#RRGGBB" })
  color: string;

  @Field(() => Boolean, { description: "An excluding status: its registrations are left out of active counts." })
  isExcluded: boolean;
}

@GraphqlObjectType("AssignedAdmin", {
  description: "The admin assigned to a registration, as the legacy list shows it (initials and color).",
})
export class AssignedAdminType {
  @Field(() => Int, { description: "The legacy admin id (an organization's admin; embedded, not a Node)." })
  adminId: number;

  @Field(() => String, { description: "The admin's initials, if set.", nullable: true })
  initials: string | null;

  @Field(() => String, { description: "The admin's color in the legacy list (#RRGGBB), if set.", nullable: true })
  color: string | null;
}

@GraphqlObjectType("MetaInfo", {
  description:
    "The legacy meta_info, typed: counts are Int, money exact decimal strings. Its id derives from its user's, so a cache updates it with the user.",
  implements: Node,
})
export class MetaInfoType implements Node {
  // The summary the id is made from when a query asks for it (not a GraphQL field). Members
  // with @Field stay plain properties: a decorated getter would become a type-graphql field
  // resolver, which the one-statement check (one-statement-read.ts) cannot tell from a read.
  declare summary: UserSummary;

  /** The Node id (see node-id.ts). */
  get id(): string {
    return encodeNodeId("MetaInfo", { groupId: this.summary.groupId, cloginId: this.summary.cloginId });
  }

  @Field(() => String, { description: "First + last name; else organization name; else username (legacy u_name)." })
  name: string;

  @Field(() => Int, { description: "Forms the registration has." })
  totalForms: number;

  @Field(() => Int, { description: "Forms of the registration that are complete." })
  completedForms: number;

  @Field(() => Int, { description: "Forms filled by the registrant (not admin-only forms)." })
  totalUserForms: number;

  @Field(() => Int, { description: "Registrant forms that are complete." })
  totalCompletedUserForms: number;

  @Field(() => Int, { description: "Registrant forms that are mandatory." })
  totalUserMandatoryForms: number;

  @Field(() => Int, { description: "Mandatory registrant forms that are complete." })
  totalCompletedUserMandatoryForms: number;

  @Field(() => MoneyScalar, { description: "Sum of cart lines (price × quantity)." })
  totalOrder: string;

  @Field(() => MoneyScalar, { description: "Sum of the registration's payments." })
  totalPaid: string;

  @Field(() => MoneyScalar, { description: "totalOrder − totalPaid." })
  totalBalance: string;

  @Field(() => StatusType, { description: "The registration's status; null when none is set.", nullable: true })
  status: StatusType | null;

  @Field(() => GraphQLDateTime, { description: "When the registration was created." })
  applicationDate: Date;

  @Field(() => GraphQLDateTime, {
    description:
      "Last change to the registration, its values, forms, cart, status or emails (users filter updatedSince).",
  })
  updatedAt: Date;

  @Field(() => Int, { description: "Admin comments on the registration (legacy u_comments)." })
  commentCount: number;

  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The registration's id (legacy uid)." })
  uid: number;

  @Field(() => Int, { description: "The registration's person (clogin_id)." })
  cloginId: number;

  @Field(() => Int, {
    description: "The parent's cloginId for a child; the user's own cloginId otherwise (legacy connected_to).",
  })
  connectedTo: number;

  @Field(() => Boolean, { description: "The current status is an excluding one." })
  excluded: boolean;

  @Field(() => Int, { description: "Tags on the registration." })
  totalUserTags: number;

  @Field(() => [Int], { description: "Tag ids, ascending." })
  tagIds: number[];

  @Field(() => Int, { description: "Children in this project whose status is not excluding." })
  totalNonExcludedChildren: number;

  @Field(() => Boolean, { description: "Starred by staff (legacy star)." })
  star: boolean;

  @Field(() => AssignedAdminType, { description: "The admin assigned to the registration, if any.", nullable: true })
  assignedAdmin: AssignedAdminType | null;
}

/** A status under its GraphQL member names; statuses belong to one project. */
export function presentStatus(
  status: { id: number; name: string; color: string; isExcluded: boolean },
  groupId: number,
): StatusType {
  return {
    id: encodeNodeId("Status", { groupId, statusId: status.id }),
    statusId: status.id,
    name: status.name,
    color: status.color,
    isExcluded: status.isExcluded,
  };
}

/** How a GraphQL field presents one member of the user summary (src/data/user-projection.ts). */
export interface SummaryFieldPresenter<V> {
  member: SummaryMemberName;
  present: (summary: UserSummary) => V;
}

/** A field presenting summary member `member` (as it is, or through `present`). */
export function fromSummary<M extends SummaryMemberName, V = UserSummary[M]>(
  member: M,
  present: (value: UserSummary[M], summary: UserSummary) => V = (value) => value as unknown as V,
): SummaryFieldPresenter<V> {
  return { member, present: (summary) => present(summary[member], summary) };
}

type MetaInfoFields = Omit<MetaInfoType, "id" | "summary">;

/**
 * The GraphQL meta info, one line per field: the summary member it reads and how it shows it.
 * What a selection of MetaInfo fields must read derives from here (summary-selection.ts).
 */
export const META_INFO_FIELDS: { [F in keyof MetaInfoFields]: SummaryFieldPresenter<MetaInfoFields[F]> } = {
  name: fromSummary("name"),
  totalForms: fromSummary("totalForms"),
  completedForms: fromSummary("completedForms"),
  totalUserForms: fromSummary("totalUserForms"),
  totalCompletedUserForms: fromSummary("totalCompletedUserForms"),
  totalUserMandatoryForms: fromSummary("totalUserMandatoryForms"),
  totalCompletedUserMandatoryForms: fromSummary("totalCompletedUserMandatoryForms"),
  totalOrder: fromSummary("totalOrderCents", formatCents),
  totalPaid: fromSummary("totalPaidCents", formatCents),
  totalBalance: fromSummary("totalBalanceCents", formatCents),
  status: fromSummary("status", (status, summary) => status && presentStatus(status, summary.groupId)),
  applicationDate: fromSummary("applicationDate"),
  updatedAt: fromSummary("updatedAt"),
  commentCount: fromSummary("commentCount"),
  groupId: fromSummary("groupId"),
  uid: fromSummary("uid"),
  cloginId: fromSummary("cloginId"),
  connectedTo: fromSummary("connectedTo"),
  excluded: fromSummary("excluded"),
  totalUserTags: fromSummary("tagIds", (ids) => ids.length),
  tagIds: fromSummary("tagIds"),
  totalNonExcludedChildren: fromSummary("nonExcludedChildren"),
  star: fromSummary("star"),
  assignedAdmin: fromSummary(
    "assignedAdmin",
    (admin) => admin && { adminId: admin.id, initials: admin.initials, color: admin.color },
  ),
};

/**
 * The one mapping from the summary to the GraphQL meta info: the fields whose member the summary
 * holds, which are those the operation selects when it was read for them (summary-selection.ts).
 */
export function presentMetaInfo(summary: UserSummary): MetaInfoType {
  // Member by member on the new instance (one per user of a page): no intermediate literal copied
  // over, and no slot for each of the class's fields (as `new` makes) when a page presents two.
  const meta = Object.create(MetaInfoType.prototype) as MetaInfoType;
  meta.summary = summary;
  const fields = meta as unknown as Record<string, unknown>;
  const held = summary as Readonly<Record<string, unknown>>;
  const presenters = META_INFO_FIELDS as Record<string, SummaryFieldPresenter<unknown>>;
  for (const field in presenters) {
    const presenter = presenters[field];
    if (held[presenter.member] !== undefined) fields[field] = presenter.present(summary);
  }
  return meta;
}

@GraphqlObjectType("FieldValue", {
  description:
    "A stored answer. `text` is set for text-like fields, `choices` for choice fields. Its id derives from its user and field.",
  implements: Node,
})
export class FieldValueType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => FormFieldType, { description: "The form field answered." })
  field: FormFieldType;

  @Field(() => String, { nullable: true, description: "The answer of a non-choice field; null for choice fields." })
  text: string | null;

  @Field(() => [String], {
    nullable: true,
    description: "The chosen option values of a choice field; null for other fields.",
  })
  choices: string[] | null;

  @Field(() => GraphQLDateTime, { description: "When the answer was last written." })
  updatedAt: Date;
}

@GraphqlObjectType("EmailRecord", {
  description: "An entry of the user's sent-email history (nothing is sent by the API).",
  implements: Node,
})
export class EmailRecordType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy id of the history entry." })
  emailId: number;

  @Field(() => String, { description: "The sender's address." })
  from: string;

  @Field(() => String, { description: "Comma-separated addresses." })
  to: string;

  @Field(() => String, { description: "Copies, as recorded.", nullable: true })
  cc: string | null;

  @Field(() => String, { description: "Blind copies, as recorded.", nullable: true })
  bcc: string | null;

  @Field(() => String, { description: "The subject." })
  subject: string;

  @Field(() => String, { description: "The body as recorded." })
  body: string;

  @Field(() => Int, { description: "The admin who sent it, if the call named one.", nullable: true })
  adminId: number | null;

  @Field(() => GraphQLDateTime, { description: "When it was recorded (or queued, for a trigger email)." })
  recordedAt: Date;

  @Field(() => EmailOriginEnum, { description: "Recorded through the API or written by a form trigger." })
  origin: EmailOriginEnum;

  @Field(() => EmailDeliveryStatusEnum, {
    nullable: true,
    description: "Trigger emails: QUEUED, SENT or FAILED (delivered by the worker). Null for recorded emails.",
  })
  deliveryStatus: OutboxState | null;

  @Field(() => Int, { nullable: true, description: "Trigger emails: delivery attempts so far." })
  deliveryAttempts: number | null;
}

@GraphqlObjectType("Tag", { description: "A tag of a project, attached to registrations.", implements: Node })
export class TagType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy tag id." })
  tagId: number;

  @Field(() => String, { description: "The tag's name." })
  name: string;
}

@GraphqlObjectType("CartLine", { description: "A product in the user's cart (legacy _usercart).", implements: Node })
export class CartLineType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy cart id (as in addProduct's cartIds)." })
  cartLineId: number;

  @Field(() => Int, { description: "The product (legacy p_id)." })
  productId: number;

  @Field(() => String, { description: "The product's name when read." })
  productName: string;

  @Field(() => Int, { description: "Units of the product." })
  quantity: number;

  @Field(() => MoneyScalar, { description: "The price of one unit when it was added." })
  unitPrice: string;

  @Field(() => MoneyScalar, { description: "unitPrice × quantity." })
  amount: string;

  @Field(() => String, { description: "The remark given when it was added.", nullable: true })
  remark: string | null;

  @Field(() => String, { nullable: true, description: "First day of a subscription, YYYY-MM-DD." })
  recurringStartDate: string | null;

  @Field(() => GraphQLDateTime, { description: "When the line was added." })
  addedAt: Date;
}

@GraphqlObjectType("Payment", {
  description: "A payment of the registration (legacy _userpayments).",
  implements: Node,
})
export class PaymentType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy payment id." })
  paymentId: number;

  @Field(() => MoneyScalar, { description: "The amount paid." })
  amount: string;

  @Field(() => GraphQLDateTime, { description: "When it was paid." })
  paidAt: Date;

  @Field(() => String, {
    nullable: true,
    description:
      "How it was paid (card, cheque, …) as the payment system named it: open text the API does not write, so a String, not an enum.",
  })
  method: string | null;

  @Field(() => String, { description: "A note from the payment system.", nullable: true })
  note: string | null;
}

@GraphqlObjectType("Utm", {
  description: "Marketing attribution of the registration (legacy _utm). Its id derives from its user's.",
  implements: Node,
})
export class UtmType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => String, { description: "utm_campaign.", nullable: true })
  campaign: string | null;

  @Field(() => String, { description: "utm_content.", nullable: true })
  content: string | null;

  @Field(() => String, { nullable: true, description: "The attribution's own utm_id parameter (legacy _utm id)." })
  utmId: string | null;

  @Field(() => String, { description: "utm_medium.", nullable: true })
  medium: string | null;

  @Field(() => String, { description: "utm_source.", nullable: true })
  source: string | null;

  @Field(() => String, { description: "utm_term.", nullable: true })
  term: string | null;
}

@GraphqlObjectType("User", {
  description: "A person registered in a project (the legacy user). Nested data is loaded in batches.",
  implements: Node,
})
export class UserType implements Node {
  /** The Node id (see node-id.ts), encoded when asked. */
  get id(): string {
    return encodeNodeId("User", { groupId: this.groupId, cloginId: this.cloginId });
  }

  @Field(() => Int, { description: "The registration's own id." })
  uid: number;

  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The person (clogin_id), the same in every project the person registered in." })
  cloginId: number;

  @Field(() => Int, {
    nullable: true,
    description: "The parent's cloginId for a child in a family project; null otherwise.",
  })
  parentCloginId: number | null;
}
