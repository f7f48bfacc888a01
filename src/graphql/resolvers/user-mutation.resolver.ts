import { Arg, Ctx, Mutation, Resolver, UseMiddleware, Authorized } from "type-graphql";
import { validationFailed } from "../../domain/errors";
import type { UserOutcome } from "../../domain/users/user-commands";
import { addEmails, createUser, updateUser } from "../../domain/users/users.service";
import type { GraphqlContext } from "../context";
import { INPUT_PATHS } from "../graphql-errors";
import { problemsInPayload } from "../input-problems";
import {
  AddEmailInput,
  CreateUserInput,
  MarkFormsCompleteInput,
  UpdateMeInput,
  UpdateUserInput,
} from "../inputs/user-mutation.input";
import { updateOwnRegistration } from "../../domain/sessions/registrant-sessions";
import { MarkFormsCompletePayloadType, UserPayloadType } from "../types/payloads.type";
import type { UserType } from "../types/user.type";
import { presentProblems, userFromOutcome } from "./present";

/**
 * After a write, reads in the same request must not see cached rows from before it; the
 * outcome's summary is fresh, so it primes the loader instead of being read again.
 */
function afterWrite(ctx: GraphqlContext, outcome: UserOutcome): UserType {
  ctx.loaders.clearAll();
  ctx.loaders.primeSummary(outcome.summary);
  return userFromOutcome(outcome);
}

/**
 * The input's two members as the command's one selection. "Exactly one of them" is a rule of this
 * input type's shape (GraphQL has no input unions), so it is checked here, reported like the domain's.
 */
function formSelectionOf(input: MarkFormsCompleteInput): "all" | string[] {
  const hasIds = input.formIds != null;
  if (hasIds === (input.all === true)) {
    throw validationFailed([
      { path: ["formIds"], reason: "CONFLICTING_MEMBERS", message: "needs exactly one of formIds and all: true" },
    ]);
  }
  // The domain command takes ids as the REST wire sends them (strings); GraphQL has already checked they are Int.
  return hasIds ? input.formIds!.map(String) : "all";
}

@Resolver()
export class UserMutationResolver {
  @Authorized("account")
  @Mutation(() => UserPayloadType, {
    description: "Registers a new person (or an existing one of your organization) in a project.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async createUser(
    @Arg("input", () => CreateUserInput, { description: "The registration to create." }) input: CreateUserInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await createUser(ctx.request, {
      groupId: input.groupId,
      cloginId: input.cloginId,
      username: input.username,
      password: input.password,
      mainEmail: input.mainEmail,
      firstName: input.firstName,
      lastName: input.lastName,
      orgName: input.orgName,
      values: input.values,
      submitForms: input.submitForms,
      disableEmailSending: input.disableEmailSending,
    });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }

  @Authorized("account")
  @Mutation(() => UserPayloadType, {
    description: "Saves field values (submitting their forms unless submitForms is false).",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async updateUser(
    @Arg("input", () => UpdateUserInput, { description: "The user and the values to write." }) input: UpdateUserInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await updateUser(ctx.request, {
      groupId: input.groupId,
      cloginId: input.cloginId,
      values: input.values,
      submitForms: input.submitForms,
      disableEmailSending: input.disableEmailSending,
    });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }

  @Authorized("registrant")
  @Mutation(() => UserPayloadType, {
    description:
      "The signed-in registrant saves its own values (rules of updateUser; admin-only forms excluded). Needs Authorization: Bearer <session token>.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async updateMe(
    @Arg("input", () => UpdateMeInput, { description: "The values to write to the session's own registration." })
    input: UpdateMeInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await updateOwnRegistration(ctx.request, { values: input.values, submitForms: input.submitForms });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }

  @Authorized("account")
  @Mutation(() => MarkFormsCompletePayloadType, {
    description:
      "Saves optional values, then marks forms complete, in one transaction; ids that are not the user's forms are skipped with a reason.",
  })
  @UseMiddleware(
    problemsInPayload(
      { prefix: "input", names: { markFormsComplete: "formIds" } },
      MarkFormsCompletePayloadType.rejected,
    ),
  )
  async markFormsComplete(
    @Arg("input", () => MarkFormsCompleteInput, { description: "The user and the forms to mark complete." })
    input: MarkFormsCompleteInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<MarkFormsCompletePayloadType> {
    const outcome = await updateUser(ctx.request, {
      groupId: input.groupId,
      cloginId: input.cloginId,
      values: input.values,
      markFormsComplete: formSelectionOf(input),
      submitForms: input.submitForms,
      disableEmailSending: input.disableEmailSending,
    });
    const marked = outcome.markFormsComplete ?? { markedComplete: [], skipped: [] };
    return {
      markedComplete: marked.markedComplete,
      skipped: marked.skipped.map((entry) => ({ formId: Number(entry.formId), reason: entry.reason })),
      notices: outcome.notices,
      problems: presentProblems(outcome.problems),
      user: afterWrite(ctx, outcome),
    };
  }

  @Authorized("account")
  @Mutation(() => UserPayloadType, {
    description: "Records emails sent elsewhere in the user's history; all or nothing. Nothing is sent.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UserPayloadType.rejected))
  async addEmail(
    @Arg("input", () => AddEmailInput, { description: "The user and the emails to record." }) input: AddEmailInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UserPayloadType> {
    const outcome = await addEmails(ctx.request, {
      groupId: input.groupId,
      cloginId: input.cloginId,
      emails: input.emails,
    });
    return { user: afterWrite(ctx, outcome), notices: outcome.notices, problems: presentProblems(outcome.problems) };
  }
}
