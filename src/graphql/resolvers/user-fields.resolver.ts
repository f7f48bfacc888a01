import type { GraphQLResolveInfo } from "graphql";
import { Authorized, Ctx, FieldResolver, Info, Resolver, Root } from "type-graphql";
import type { GraphqlContext } from "../context";
import { selectsPath } from "../selection";
import { UserFormType } from "../types/form.type";
import { ProjectType } from "../types/project.type";
import {
  CartLineType,
  EmailRecordType,
  PaymentType,
  UtmType,
  FieldValueType,
  MetaInfoType,
  presentMetaInfo,
  StatusType,
  TagType,
  UserType,
} from "../types/user.type";
import {
  presentCartLine,
  presentEmailRecord,
  presentFieldValue,
  presentPayment,
  presentProjectListing,
  presentUserForm,
  presentUtm,
  userFromRef,
} from "./present";
import { visibleAnswers, visibleFormSet } from "./user-read";
import { USER_SUMMARY_FIELDS } from "../types/user-summary-fields";

@Resolver(() => UserType)
export class UserFieldsResolver {
  private async summary(user: UserType, ctx: GraphqlContext) {
    const summary = ctx.loaders.knownSummary(user.uid) ?? (await ctx.loaders.summaries.load(user.uid));
    if (!summary) throw new Error(`registration ${user.uid} vanished while its fields were read`);
    return summary;
  }

  private async person(user: UserType, ctx: GraphqlContext) {
    const person = await ctx.loaders.persons.load(user.cloginId);
    if (!person) throw new Error(`person ${user.cloginId} of registration ${user.uid} is missing`);
    return person;
  }

  // A User whose summary is already read skips this resolver (execution/schema-patches.ts).
  @FieldResolver(() => MetaInfoType, { description: "The registration's summary: status, form counts, money, dates." })
  async metaInfo(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<MetaInfoType> {
    return presentMetaInfo(await this.summary(user, ctx));
  }

  @FieldResolver(() => String, { description: "First + last name; else organization name; else username." })
  async name(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string> {
    return USER_SUMMARY_FIELDS.name.present(await this.summary(user, ctx));
  }

  @FieldResolver(() => StatusType, { description: "The registration's status; null when none is set.", nullable: true })
  async status(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<StatusType | null> {
    return USER_SUMMARY_FIELDS.status.present(await this.summary(user, ctx));
  }

  @FieldResolver(() => String, { description: "The person's username (a login name)." })
  async username(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string> {
    return (await this.person(user, ctx)).username;
  }

  @FieldResolver(() => String, { description: "The person's main email address.", nullable: true })
  async mainEmail(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).mainEmail;
  }

  @FieldResolver(() => String, { description: "The person's first name.", nullable: true })
  async firstName(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).firstName;
  }

  @FieldResolver(() => String, { description: "The person's last name.", nullable: true })
  async lastName(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<string | null> {
    return (await this.person(user, ctx)).lastName;
  }

  @FieldResolver(() => [UserFormType], {
    description: "The user's form set in form order (without admin-only forms for a registrant session).",
  })
  async forms(
    @Root() user: UserType,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserFormType[]> {
    if (selectsPath(info, ["form", "fields"]) || selectsPath(info, ["missingMandatoryFields"])) {
      ctx.loaders.wantFormFields();
    }
    return (await visibleFormSet(user.uid, ctx)).map((row) => presentUserForm(row, user));
  }

  @FieldResolver(() => [FieldValueType], {
    description: "Stored answers in form and field order (without admin-only forms for a registrant session).",
  })
  async fieldValues(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<FieldValueType[]> {
    return (await visibleAnswers(user.uid, ctx)).map((row) => presentFieldValue(row, user));
  }

  @Authorized("account")
  @FieldResolver(() => [EmailRecordType], {
    nullable: true,
    description: "Email history, oldest first; null with FORBIDDEN for a registrant session.",
  })
  async emails(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<EmailRecordType[]> {
    return (await ctx.loaders.emails.load(user.uid)).map((entry) => presentEmailRecord(entry, user));
  }

  @FieldResolver(() => [CartLineType], { description: "Cart lines, oldest first (legacy _usercart)." })
  async cartLines(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<CartLineType[]> {
    return (await ctx.loaders.cartLines.load(user.uid)).map((line) => presentCartLine(line, user));
  }

  @FieldResolver(() => [PaymentType], { description: "Payments, oldest first (legacy _userpayments)." })
  async payments(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<PaymentType[]> {
    return (await ctx.loaders.payments.load(user.uid)).map((payment) => presentPayment(payment, user));
  }

  @FieldResolver(() => UtmType, { description: "UTM attribution (legacy _utm); every member but id null when none." })
  async utm(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UtmType> {
    return presentUtm(await ctx.loaders.utm.load(user.uid), user);
  }

  @Authorized("account")
  @FieldResolver(() => [TagType], { nullable: true, description: "null with FORBIDDEN for a registrant session." })
  async tags(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<TagType[]> {
    // Tags are read with the summary, in the same statement.
    const summary = ctx.loaders.knownSummary(user.uid) ?? (await ctx.loaders.summaries.load(user.uid));
    return summary ? USER_SUMMARY_FIELDS.tags.present(summary) : [];
  }

  // Other registrations, project-wide data or the organization's internal records.
  @Authorized("account")
  @FieldResolver(() => UserType, { nullable: true, description: "The parent registration of a child; null otherwise." })
  async parent(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UserType | null> {
    if (user.parentCloginId == null) return null;
    const ref = await ctx.loaders.registrationsByPerson.load({ groupId: user.groupId, cloginId: user.parentCloginId });
    return ref ? userFromRef(ref) : null;
  }

  @Authorized("account")
  @FieldResolver(() => [UserType], {
    nullable: true,
    description:
      "Children registered under this user in the same project, by uid; null with FORBIDDEN for a registrant session.",
  })
  async children(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<UserType[]> {
    const refs = await ctx.loaders.children.load({ groupId: user.groupId, cloginId: user.cloginId });
    return refs.map(userFromRef);
  }

  // A registrant session reaches only its own User, so the project is its own: what of the
  // project it may read is said field by field on Project.
  @FieldResolver(() => ProjectType, {
    nullable: true,
    description: "The user's project; for a registrant session, the fields a registrant portal needs.",
  })
  async project(@Root() user: UserType, @Ctx() ctx: GraphqlContext): Promise<ProjectType | null> {
    const project = await ctx.loaders.projects.load(user.groupId);
    if (!project) throw new Error(`project ${user.groupId} of registration ${user.uid} is missing`);
    return presentProjectListing(project);
  }
}
