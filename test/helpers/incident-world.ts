/**
 * The world of the Incident Response scenario's remote services: PagerDuty's
 * incident PT4KHLK (alerts, a timeline, on-call) and a GitHub repository whose
 * last hours hold merged pull requests, commits and a failed deployment.
 */
import { commit, deployment, deploymentStatus, pullRequest } from './github-fixtures';
import { emptyRepo, type FakeRepo } from './github-server';
import { type PagerDutyWorld, pdAlert, pdIncident, pdLogEntry, pdOncall } from './pagerduty-server';

/** The repository the scenario reads. */
export const INCIDENT_REPO = 'octocat/Hello-World';
/** The incident that paged. */
export const INCIDENT_ID = 'PT4KHLK';

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** PagerDuty: the paging incident and an older resolved one. */
export function incidentPagerDuty(now = Date.now()): PagerDutyWorld {
  return {
    incidents: [
      pdIncident(INCIDENT_ID, 1234, {
        status: 'triggered',
        urgency: 'high',
        createdAt: iso(now - 20 * MINUTE),
      }),
      pdIncident('PINC001', 1233, {
        status: 'resolved',
        urgency: 'low',
        createdAt: iso(now - 26 * 60 * MINUTE),
      }),
    ],
    alerts: {
      [INCIDENT_ID]: [
        pdAlert(INCIDENT_ID, 0, iso(now - 20 * MINUTE)),
        pdAlert(INCIDENT_ID, 1, iso(now - 18 * MINUTE)),
      ],
    },
    logEntries: {
      [INCIDENT_ID]: [
        pdLogEntry(INCIDENT_ID, 0, 'trigger_log_entry', iso(now - 20 * MINUTE)),
        pdLogEntry(INCIDENT_ID, 1, 'notify_log_entry', iso(now - 19 * MINUTE)),
      ],
    },
    notes: {},
    oncalls: [pdOncall(1), pdOncall(2)],
  };
}

/** GitHub: merges, commits and a failed deployment in the hours before the page. */
export function incidentGitHub(now = Date.now()): Record<string, FakeRepo> {
  const repo = emptyRepo();
  repo.pulls.push(
    pullRequest(INCIDENT_REPO, 1347, {
      merged_at: iso(now - 90 * MINUTE),
      updated_at: iso(now - 90 * MINUTE),
      title: 'Open port 22 on the bastion security group',
    }),
    pullRequest(INCIDENT_REPO, 1346, { merged_at: null, updated_at: iso(now - 100 * MINUTE) }),
    pullRequest(INCIDENT_REPO, 1300, {
      merged_at: iso(now - 30 * 60 * MINUTE),
      updated_at: iso(now - 30 * 60 * MINUTE),
    }),
  );
  repo.commits.push(
    commit(INCIDENT_REPO, 1, iso(now - 90 * MINUTE), 'Open port 22 on the bastion security group (#1347)'),
  );
  repo.deployments.push({
    deployment: deployment(INCIDENT_REPO, 42, iso(now - 60 * MINUTE)),
    statuses: [deploymentStatus(INCIDENT_REPO, 42, 'success', iso(now - 55 * MINUTE))],
  });
  return { [INCIDENT_REPO]: repo };
}
