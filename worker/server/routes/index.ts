// Route groups that modules beyond the core register. One line each.
import type { RouteGroup } from '../app';
import { agentRoutes } from './agent';
import { contextRoutes } from './context';
import { freshnessRoutes } from './freshness';
import { searchRoutes } from './search';
import { teamRoutes } from './team';
import { viewerRoutes } from './viewer';

export const moduleRoutes: RouteGroup[] = [searchRoutes, contextRoutes, agentRoutes, viewerRoutes, teamRoutes, freshnessRoutes];
