import { type FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts.js';
import { activityRoutes } from './activity.js';
import { adsTxtRoutes } from './adsTxt.js';
import { alertRoutes } from './alerts.js';
import { adminConfigRoutes } from './adminConfig.js';
import { apiKeyRoutes } from './apiKeys.js';
import { authRoutes } from './auth.js';
import { bulkRoutes } from './bulk.js';
import { channelCampaignRoutes } from './channelCampaigns.js';
import { channelFloorRoutes } from './channelFloors.js';
import { clockRoutes } from './clock.js';
import { dashboardRoutes } from './dashboard.js';
import { openApiRoutes } from './openapi.js';
import { deliveryStateRoutes } from './deliveryStates.js';
import { demandInfoRoutes } from './demandInfo.js';
import { historyRoutes } from './history.js';
import { pacingRoutes } from './pacing.js';
import { pbReportRoutes } from './pbReports.js';
import { reportRoutes } from './reports.js';
import { reportScheduleRoutes } from './reportSchedules.js';
import { resourceRoutes } from './resources.js';
import { rowStatsRoutes } from './rowStats.js';
import { savedReportRoutes } from './savedReports.js';
import { switchRoutes } from './switch.js';
import { tagTestRoutes } from './tagTest.js';
import { uiSettingsRoutes } from './uiSettings.js';
import { usedByRoutes } from './usedBy.js';
import { vastParamsRoutes } from './vastParams.js';

/**
 * Every /api resource, one file each. Add a resource by writing `src/api/<resource>.ts` exporting
 * `async function <resource>Routes(app)` whose routes declare `config: { guard }`, then list it here
 * and run `npm run docs:routes -w @adplane/server`.
 */
const API_ROUTES = [
  authRoutes,
  switchRoutes,
  demandInfoRoutes,
  adminConfigRoutes,
  uiSettingsRoutes,
  vastParamsRoutes,
  pacingRoutes,
  resourceRoutes,
  usedByRoutes,
  historyRoutes,
  accountRoutes,
  bulkRoutes,
  activityRoutes,
  reportRoutes,
  pbReportRoutes,
  savedReportRoutes,
  reportScheduleRoutes,
  dashboardRoutes,
  clockRoutes,
  rowStatsRoutes,
  deliveryStateRoutes,
  tagTestRoutes,
  adsTxtRoutes,
  channelFloorRoutes,
  channelCampaignRoutes,
  apiKeyRoutes,
  alertRoutes,
  openApiRoutes,
];

export async function registerApiRoutes(app: FastifyInstance): Promise<void> {
  for (const routes of API_ROUTES) await app.register(routes);
}
