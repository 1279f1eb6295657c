import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { apiEnvSchema, loadApiEnv } from '@bda/api';
import { envSchema as gatewayEnvSchema, loadEnv as loadGatewayEnv } from '@bda/gateway';
import { indexerEnvSchema, loadIndexerEnv } from '@bda/indexer';
import { loadObserverEnv, observerEnvSchema } from '@bda/observer';
import { BROKER_LIMITS, pinnedKafkaVersion, expectMessage } from '@bda/test-support';
import { DEFAULT_MAX_MESSAGE_BYTES } from '@bda/bus';
import { BUILD_ENTRIES } from '../../scripts/build.mjs';

/**
 * docker-compose.yml cannot run here (no Docker engine), so nothing else would notice it drifting from the code: a
 * variable renamed in a service's env.ts, a port changed, a bundle renamed. These checks read it as Compose does
 * (anchors and merge keys, `${VAR:-default}`) and hold it against the services' own configuration schemas.
 */

const ROOT = join(import.meta.dirname, '..', '..');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | number | boolean>;
  ports?: string[];
  depends_on?: string[];
  volumes?: string[];
  command?: string[];
}

/** Compose's interpolation: `${VAR:-default}` and `${VAR-default}` with VAR unset give the default, `${VAR}` ''. */
function interpolate(value: string): string {
  return value.replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? '');
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};

/** A service's environment as its process would see it: every value a string. */
function envOf(name: string): Record<string, string> {
  const env = compose.services[name]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]));
}

/** What each value of SERVICE runs: its configuration schema and loader, and the variable holding its port. */
const SERVICES = {
  observer: { keys: Object.keys(observerEnvSchema.shape), load: loadObserverEnv, portVar: 'OBSERVER_PORT' },
  indexer: { keys: Object.keys(indexerEnvSchema.shape), load: loadIndexerEnv, portVar: 'INDEXER_PORT' },
  api: { keys: Object.keys(apiEnvSchema.innerType().shape), load: loadApiEnv, portVar: 'API_PORT' },
  gateway: { keys: Object.keys(gatewayEnvSchema.shape), load: loadGatewayEnv, portVar: 'GATEWAY_PORT' },
} as const;
type ServiceKind = keyof typeof SERVICES;

/** The compose services built from the project's image, with the kind of service each runs. */
const ours = Object.entries(compose.services)
  .filter(([, s]) => s.build !== undefined)
  .map(([name, s]) => ({ name, service: s, kind: envOf(name).SERVICE as ServiceKind }));

describe('docker-compose.yml', () => {
  it('runs each of the four services from the project image', () => {
    expect(new Set(ours.map((s) => s.kind))).toEqual(new Set(['observer', 'indexer', 'api', 'gateway']));
    for (const { name, service, kind } of ours) {
      expectMessage(`${name}: SERVICE`, () => expect(Object.keys(SERVICES)).toContain(kind));
      // The image's command runs dist/${SERVICE}.mjs, which scripts/build.mjs must produce.
      expectMessage(`${name}: a bundle named ${kind}`, () => expect(Object.keys(BUILD_ENTRIES)).toContain(kind));
      expectMessage(`${name}: its Dockerfile`, () =>
        expect(existsSync(join(ROOT, service.build!.context, service.build!.dockerfile))).toBe(true),
      );
    }
  });

  it('sets only variables the service reads, and values its configuration accepts', () => {
    for (const { name, kind } of ours) {
      const env = envOf(name);
      const unknown = Object.keys(env).filter((k) => k !== 'SERVICE' && !SERVICES[kind].keys.includes(k));
      expectMessage(`${name} sets variables ${kind}'s env.ts does not read`, () => expect(unknown).toEqual([]));
      expectMessage(`${name}'s environment`, () => expect(() => SERVICES[kind].load(env)).not.toThrow());
    }
  });

  it('publishes the ports the services listen on', () => {
    for (const { name, service, kind } of ours) {
      const listening = String((SERVICES[kind].load(envOf(name)) as Record<string, unknown>)[SERVICES[kind].portVar]);
      for (const mapping of service.ports ?? []) {
        expectMessage(`${name}: ${mapping}`, () => expect(mapping.split(':').at(-1)).toBe(listening));
      }
    }
  });

  it('points every connection at a compose service on the port it listens on, and starts that service first', () => {
    const listens = new Map<string, string>([
      ['postgres', '5432'],
      ['kafka', '9092'],
      ['redis', '6379'],
    ]);
    for (const { name, kind } of ours) {
      listens.set(name, String((SERVICES[kind].load(envOf(name)) as Record<string, unknown>)[SERVICES[kind].portVar]));
    }
    for (const { name, service, kind } of ours) {
      const env = envOf(name);
      // The defaults name 127.0.0.1, which inside a container is the container itself: every service sets the
      // connections it uses. The observer uses PostgreSQL only as its embedded bus, without Kafka.
      const usesDatabase = kind !== 'observer' || !env.KAFKA_BROKERS;
      if (usesDatabase) expectMessage(`${name}: DATABASE_URL`, () => expect(env.DATABASE_URL).toBeTruthy());
      const targets = [
        ...(usesDatabase ? [env.DATABASE_URL!] : []),
        ...(env.KAFKA_BROKERS ?? '')
          .split(',')
          .filter(Boolean)
          .map((b) => `kafka://${b}`),
        ...(env.REDIS_URL ? [env.REDIS_URL] : []),
        ...(env.API_URLS ?? '').split(',').filter(Boolean),
      ];
      for (const target of targets) {
        const url = new URL(target);
        expectMessage(`${name} → ${target}`, () => expect(listens.get(url.hostname)).toBe(url.port));
        expectMessage(`${name} depends on ${url.hostname}`, () => expect(service.depends_on ?? []).toContain(url.hostname));
      }
    }
  });

  it('has the observers and the indexer on one bus', () => {
    const buses = ours
      .filter(({ kind }) => kind === 'observer' || kind === 'indexer')
      .map(({ name }) => {
        const env = envOf(name);
        return { name, brokers: env.KAFKA_BROKERS ?? '', prefix: env.BUS_TOPIC_PREFIX ?? '' };
      });
    expect(buses.length).toBeGreaterThanOrEqual(2);
    for (const bus of buses) expectMessage(bus.name, () => expect({ ...bus, name: buses[0]!.name }).toEqual(buses[0]));
    // The production topology runs Kafka, not the embedded bus.
    expect(buses[0]!.brokers).not.toBe('');
  });

  it('runs the bitcoind follower on exactly one observer (ADR 0011)', () => {
    const following = ours.filter(({ name, kind }) => kind === 'observer' && envOf(name).BITCOIND_RPC_URL);
    expect(following.map((s) => s.name)).toHaveLength(1);
    const follower = compose.services[following[0]!.name] as ComposeService & { deploy?: { replicas?: number } };
    expect(follower.deploy?.replicas ?? 1).toBe(1);
  });

  it("runs the Kafka version the tests run, with the test broker's limits, on a kept volume", () => {
    const kafka = compose.services.kafka!;
    expect(kafka.image).toBe(`apache/kafka:${pinnedKafkaVersion()}`);
    const env = envOf('kafka');
    expect(Number(env.KAFKA_MESSAGE_MAX_BYTES)).toBe(BROKER_LIMITS.messageMaxBytes);
    expect(Number(env.KAFKA_REPLICA_FETCH_MAX_BYTES)).toBe(BROKER_LIMITS.messageMaxBytes);
    expect(Number(env.KAFKA_FETCH_MAX_BYTES)).toBe(BROKER_LIMITS.messageMaxBytes);
    expect(Number(env.KAFKA_SOCKET_REQUEST_MAX_BYTES)).toBe(BROKER_LIMITS.socketRequestMaxBytes);
    // The topics' own limit (what the observer may publish) fits under the broker's.
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBeLessThanOrEqual(BROKER_LIMITS.messageMaxBytes);
    expect(env.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
    // The log is written where the named volume is mounted.
    const mounts = (kafka.volumes ?? []).map((v) => v.split(':'));
    expect(mounts.some(([volume, path]) => path === env.KAFKA_LOG_DIRS && volume! in compose.volumes)).toBe(true);
  });

  it('keeps PostgreSQL on a named volume at the data directory of its image', () => {
    const pg = compose.services.postgres!;
    expect(pg.image).toMatch(/^postgres:1[4-7]$/); // postgres:18 moved the data directory to /var/lib/postgresql
    const mounts = (pg.volumes ?? []).map((v) => v.split(':'));
    expect(mounts.some(([volume, path]) => path === '/var/lib/postgresql/data' && volume! in compose.volumes)).toBe(true);
  });
});
