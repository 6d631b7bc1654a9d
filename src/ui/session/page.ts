/**
 * The page's one session controller (and through it its recorder and writer lock): the panels'
 * actions, restore.ts, interop.ts and the store reactions (subscriptions.ts) all act on this one.
 * Tests build their own (test/ui/session/controller.test.ts).
 */
import { SessionController } from './controller';

export const controller = new SessionController();
