import { readFileSync } from 'node:fs';
import { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AlertEpisodeList,
  AlertEpisodesQuery,
  AlertRule,
  AlertRuleInput,
  AlertRuleList,
  AdsTxtCheckRequest,
  adsTxtCheckPath,
  ApiKeyIdParams,
  ApiKeyList,
  ChannelCampaignsAnswer,
  ChannelCampaignsInput,
  channelCampaignsPath,
  ChannelFloors,
  channelFloorsPath,
  AppConfig,
  CreateApiKeyInput,
  CreatedApiKey,
  DashboardQuery,
  DeliveryStatesQuery,
  FinanceQuery,
  ListQuery,
  LoginBody,
  ChangePasswordBody,
  ForgotPasswordBody,
  ResetPasswordBody,
  ModeChoice,
  PacingQuery,
  PendingSignInBody,
  PlatformUserInput,
  RecoveryCodes,
  SecondStepBody,
  TwoFactorCodeBody,
  TwoFactorPasswordBody,
  TwoFactorSetup,
  TwoFactorStatus,
  ProfileUpdate,
  ReportFileInput,
  ReportRequest,
  ReportSchedule,
  ReportScheduleInput,
  ReportScheduleList,
  RESOURCES,
  RowStatsQuery,
  SaveReportInput,
  SwitchQuery,
  TAG_TEST_PATH,
  TagTestRequest,
  UiSettings,
  UpdateSavedReportInput,
} from '@adplane/shared';
import { type Guard, type GuardedRoute } from '../auth/guards.js';
import { serverPath } from '../serverRoot.js';
import { renderApiReference } from './apiReference.js';

/** What the contract says of one route: the zod schemas its handler parses with, and what it answers. */
interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response?: z.ZodType;
  /** The success status when it is not 200. */
  status?: number;
  /** Body fields the schema requires that this route lets a client leave out (an update keeps them: `keptOnUpdate`). */
  bodyOptional?: readonly string[];
}

const IdParams = z.object({ id: z.coerce.number().int().positive() });

/**
 * The contract schemas of the routes that parse their input with a schema of `@adplane/shared`,
 * keyed `METHOD url` as the route registry names them. Routes not named here still appear in the
 * document, with their method, path, guard and path parameters.
 */
function routeSchemas(): Map<string, RouteSchemas> {
  const table = new Map<string, RouteSchemas>([
    ['POST /api/auth/login', { body: LoginBody }],
    ['POST /api/auth/password', { body: ChangePasswordBody }],
    ['POST /api/auth/forgotPassword', { body: ForgotPasswordBody }],
    ['POST /api/auth/resetPassword', { body: ResetPasswordBody }],
    ['POST /api/auth/login/code', { body: SecondStepBody }],
    ['POST /api/auth/login/setup', { body: PendingSignInBody, response: TwoFactorSetup }],
    ['POST /api/auth/login/confirm', { body: SecondStepBody }],
    ['GET /api/auth/twoFactor', { response: TwoFactorStatus }],
    ['POST /api/auth/twoFactor/setup', { response: TwoFactorSetup }],
    ['POST /api/auth/twoFactor/confirm', { body: TwoFactorCodeBody, response: RecoveryCodes }],
    ['POST /api/auth/twoFactor/recoveryCodes', { body: TwoFactorPasswordBody, response: RecoveryCodes }],
    ['POST /api/auth/twoFactor/disable', { body: TwoFactorPasswordBody }],
    ['GET /api/users/:id/twoFactor', { params: IdParams, response: TwoFactorStatus }],
    ['POST /api/users/:id/twoFactor/reset', { params: IdParams }],
    ['POST /api/users', { body: PlatformUserInput, status: 201 }],
    ['GET /api/switch', { query: SwitchQuery }],
    ['GET /api/admin/config', { response: AppConfig }],
    ['PUT /api/admin/config', { body: AppConfig }],
    ['PUT /api/demand/info', { body: ProfileUpdate }],
    ['GET /api/ui/settings', { response: UiSettings }],
    ['PUT /api/ui/settings', { body: UiSettings }],
    ['PUT /api/ui/mode', { body: ModeChoice, response: ModeChoice }],
    ['GET /api/dashboard', { query: DashboardQuery }],
    ['GET /api/finance', { query: FinanceQuery }],
    [`GET ${RESOURCES.campaigns.api}/pacing`, { query: PacingQuery }],
    ['GET /api/deliveryStates', { query: DeliveryStatesQuery }],
    ['GET /api/rowStats', { query: RowStatsQuery }],
    ['POST /api/rrun', { body: ReportRequest }],
    ['POST /api/rfile', { body: ReportFileInput }],
    ['POST /api/savedReports', { body: SaveReportInput, status: 201 }],
    ['PUT /api/savedReport/:id', { body: UpdateSavedReportInput }],
    ['GET /api/savedReport/:id/schedules', { params: IdParams, response: ReportScheduleList }],
    [
      'POST /api/savedReport/:id/schedules',
      { params: IdParams, body: ReportScheduleInput, response: ReportSchedule, status: 201 },
    ],
    ['PUT /api/reportSchedule/:id', { params: IdParams, body: ReportScheduleInput, response: ReportSchedule }],
    ['DELETE /api/reportSchedule/:id', { params: IdParams }],
    [`POST ${TAG_TEST_PATH}`, { body: TagTestRequest }],
    [`POST ${adsTxtCheckPath(':id')}`, { body: AdsTxtCheckRequest }],
    [`GET ${channelFloorsPath(':id')}`, { params: IdParams, response: ChannelFloors }],
    [
      `PUT ${channelCampaignsPath(':id')}`,
      { params: IdParams, body: ChannelCampaignsInput, response: ChannelCampaignsAnswer },
    ],
    ['GET /api/apiKeys', { response: ApiKeyList }],
    ['POST /api/apiKeys', { body: CreateApiKeyInput, response: CreatedApiKey, status: 201 }],
    ['DELETE /api/apiKeys/:id', { params: ApiKeyIdParams }],
    ['GET /api/alerts/rules', { response: AlertRuleList }],
    ['POST /api/alerts/rules', { body: AlertRuleInput, response: AlertRule, status: 201 }],
    ['PUT /api/alerts/rules/:id', { params: IdParams, body: AlertRuleInput, response: AlertRule }],
    ['DELETE /api/alerts/rules/:id', { params: IdParams, status: 204 }],
    ['GET /api/alerts/episodes', { query: AlertEpisodesQuery, response: AlertEpisodeList }],
  ]);
  // every entity and account kind: its list query and its document's schema
  for (const def of Object.values(RESOURCES)) {
    table.set(`GET ${def.api}`, { query: ListQuery });
    table.set(`POST ${def.api}`, { body: def.schema, status: 201 });
    table.set(`PUT ${def.api}/:id`, { body: def.schema, params: IdParams, bodyOptional: def.keptOnUpdate });
    table.set(`DELETE ${def.api}/:id`, { params: IdParams, status: 204 });
  }
  return table;
}

type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as an OpenAPI 3.1 Schema Object (JSON Schema 2020-12): the shape a client sends
 * (`input`: defaults optional) or receives (`output`). Definitions zod puts in `$defs` go to the
 * document's components, where a `$ref` inside the document can reach them.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  const defs = json.$defs as Record<string, JsonSchema> | undefined;
  delete json.$defs;
  let text = JSON.stringify(json);
  if (defs) {
    for (const [name, def] of Object.entries(defs)) {
      let unique = name;
      for (let n = 2; unique in components && JSON.stringify(components[unique]) !== JSON.stringify(def); n++)
        unique = `${name}${n}`;
      components[unique] = def;
      text = text.replaceAll(`"#/$defs/${name}"`, `"#/components/schemas/${unique}"`);
    }
  }
  return JSON.parse(text) as JsonSchema;
}

/** A route's body schema, without `required` on the fields the route lets a client leave out. */
function bodySchemaOf(schemas: RouteSchemas, components: Record<string, JsonSchema>): JsonSchema {
  const json = jsonSchemaOf(schemas.body!, 'input', components);
  const optional = new Set(schemas.bodyOptional ?? []);
  if (optional.size && Array.isArray(json.required))
    json.required = (json.required as string[]).filter((field) => !optional.has(field));
  return json;
}

const pathOf = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParamsOf = (url: string) => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
/** The first path segment after /api (its resource), which groups the reference. */
const tagOf = (url: string) => url.split('/')[2] || 'api';

const GUARD_WHO: Record<Guard, string> = {
  public: 'anyone, signed in or not',
  auth: 'any signed-in user or API key',
  admin: 'an admin (user or API key)',
  demand: 'a demand account (user or API key)',
  sdk: 'an SDK account (user or API key)',
};

const errorBody = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    field: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  required: ['message'],
};
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function serverVersion(): string {
  try {
    return (JSON.parse(readFileSync(serverPath('package.json'), 'utf8')) as { version?: string }).version ?? '0';
  } catch {
    return '0';
  }
}

/** The OpenAPI 3.1 document of every route in the registry the guard hook fills. */
function buildOpenApi(registry: readonly GuardedRoute[]): Record<string, unknown> {
  const known = routeSchemas();
  const components: Record<string, JsonSchema> = { Error: errorBody };
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...registry].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    const schemas = known.get(`${route.method} ${route.url}`) ?? {};
    const parameters: Record<string, unknown>[] = [];
    const paramSchema = schemas.params
      ? (jsonSchemaOf(schemas.params, 'input', components).properties as Record<string, JsonSchema> | undefined)
      : undefined;
    for (const name of pathParamsOf(route.url))
      parameters.push({ name, in: 'path', required: true, schema: paramSchema?.[name] ?? { type: 'string' } });
    if (schemas.query) {
      const query = jsonSchemaOf(schemas.query, 'input', components);
      const required = new Set((query.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries((query.properties as Record<string, JsonSchema>) ?? {}))
        parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
    const status = String(schemas.status ?? 200);
    const success = schemas.response
      ? {
          description: 'Success',
          content: { 'application/json': { schema: jsonSchemaOf(schemas.response, 'output', components) } },
        }
      : { description: 'Success' };
    const responses: Record<string, unknown> = { [status]: success };
    if (schemas.body || schemas.query || schemas.params)
      responses['400'] = errorResponse('Bad input: the message and `field` name what is wrong');
    if (route.guard !== 'public') {
      responses['401'] = errorResponse('An unknown or revoked API key');
      responses['403'] = errorResponse('Not signed in, a caller the guard refuses, or a read-only key on a write');
      responses['429'] = errorResponse("Over the API key's rate; wait the Retry-After seconds");
    }
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()} ${route.url}`,
      summary: `${route.method} ${route.url}`,
      description: `Guard \`${route.guard}\`: ${GUARD_WHO[route.guard]}.`,
      tags: [tagOf(route.url)],
      'x-adplane-guard': route.guard,
      security: route.guard === 'public' ? [] : [{ apiKey: [] }, { session: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(schemas.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: bodySchemaOf(schemas, components) } },
            },
          }
        : {}),
      responses,
    };
    const path = pathOf(route.url);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'adplane API',
      version: serverVersion(),
      description:
        'Every route under /api. Automation signs in with `Authorization: Bearer <API key>` (keys are made in the console, profile → API keys); the console uses its session cookie.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: "An API key: the owner's rights, rate-limited per key" },
        session: { type: 'apiKey', in: 'cookie', name: 'adplane_sid', description: "The console's session" },
      },
    },
  };
}

/**
 * `GET /api/openapi.json` and its browsable reference `GET /api/docs`, both public. The document is
 * built once, at the first request, when every route has been registered.
 */
export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let doc: Record<string, unknown> | null = null;
  let page: string | null = null;
  const document = () => (doc ??= buildOpenApi(app.guardedRoutes));
  app.get('/api/openapi.json', { config: { guard: 'public' } }, async () => document());
  app.get('/api/docs', { config: { guard: 'public' } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send((page ??= renderApiReference(document()))),
  );
}

/** The `METHOD url` keys of the contract-schema table (a test checks each names a registered route). */
export const knownRouteKeys = (): string[] => [...routeSchemas().keys()];
