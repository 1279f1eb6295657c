import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port';

/**
 * A real single-node Apache Kafka broker in KRaft mode (one JVM that is both broker and controller), run from
 * the release jars that `scripts/kafka/fetch-kafka.sh` fetches through Maven (version pinned in
 * `scripts/kafka/pom.xml`). For tests, benches and `scripts/kafka/start-kafka.ts`.
 *
 * Layout of `dataDir`: `server.properties`, `log4j2.properties`, `broker.json` (ports and cluster id),
 * `kraft/` (the Kafka log directory), `server.log` (broker log), `stdout.log` (JVM output).
 * Starting again on a `dataDir` that is already formatted keeps its data and its ports: that is how a test
 * stops Kafka and brings the same broker back (`stop()` then `start()`, or `restart()`).
 *
 * Start-up speed: the first broker that stops cleanly leaves a class-data-sharing archive of the JVM's loaded
 * classes next to the jars (`-XX:ArchiveClassesAtExit`); later JVMs map it (`-XX:SharedArchiveFile`), which cuts
 * the time to a ready broker by about 40 %. `KAFKA_CDS=0` turns this off.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const FETCH_SCRIPT = join(ROOT, 'scripts/kafka/fetch-kafka.sh');
const POM = join(ROOT, 'scripts/kafka/pom.xml');

/** Broker-wide limits: a produce request or a fetch response may carry blocks of tens of MB (up to ~100 MB). */
const MESSAGE_MAX_BYTES = 110 * 1024 * 1024;
const SOCKET_REQUEST_MAX_BYTES = 120 * 1024 * 1024;
/** The broker's limits, which docker-compose.yml's broker must repeat. */
export const BROKER_LIMITS = { messageMaxBytes: MESSAGE_MAX_BYTES, socketRequestMaxBytes: SOCKET_REQUEST_MAX_BYTES } as const;

export interface StartKafkaOptions {
  /** Holds the configuration, the data and the logs. Reused as is when already formatted. */
  dataDir: string;
  /** Client (PLAINTEXT) port on 127.0.0.1. Default: the port recorded in `dataDir`, else a free one. */
  port?: number;
  /** Wipe `dataDir` first. */
  fresh?: boolean;
  /** JVM heap (-Xmx), default `512m`. */
  heap?: string;
  /** How long to wait for the broker to answer (ms), default 90 s. */
  startTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL (ms), default 20 s. */
  stopTimeoutMs?: number;
  /** Extra or overriding `server.properties` entries. */
  settings?: Record<string, string | number | boolean>;
  /**
   * JIT flags of the broker's JVM. Default `-XX:TieredStopAtLevel=1`: the quick C1 compiler only. On a 2-core
   * machine that also runs the services under test, HotSpot's optimising C2 compiler kept compiling for a long
   * time after start-up (100–160 ms of CPU inside a 250 ms ingestion run, even after 20,000 warm-up messages),
   * CPU taken from the processes being measured. C1 code is slower per message, but at test volumes the broker
   * spends far less CPU in total. Pass `[]` for the JVM's default tiers.
   */
  jitArgs?: string[];
}

export interface RunningKafka {
  /** Bootstrap address, `127.0.0.1:<port>` (also the value for KAFKA_BROKERS). */
  brokers: string;
  port: number;
  dataDir: string;
  /** The broker's log file (log4j2). */
  logFile: string;
  /** SIGTERM, then SIGKILL after the stop timeout; resolves once the JVM is gone. Idempotent. */
  stop(): Promise<void>;
  /** Starts the broker again on the same data and ports (after `stop()`); no-op while running. */
  start(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  isRunning(): boolean;
}

interface BrokerState {
  clusterId: string;
  port: number;
  controllerPort: number;
}

/** Version pinned in scripts/kafka/pom.xml. */
export function pinnedKafkaVersion(): string {
  const m = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, 'utf8'));
  if (!m?.[1]) throw new Error(`no <kafka.version> in ${POM}`);
  return m[1].trim();
}

/** Runs a command to its end without blocking the event loop (other servers start meanwhile). */
function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    proc.once('error', reject);
    proc.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** Folder of the broker jars; runs fetch-kafka.sh (Maven) when they are not there yet. */
export async function ensureKafkaJars(): Promise<string> {
  const libs = join(process.env.KAFKA_CACHE_DIR ?? join(ROOT, '.cache/kafka'), pinnedKafkaVersion(), 'libs');
  if (existsSync(join(libs, '.complete'))) return libs;
  const res = await run('bash', [FETCH_SCRIPT]);
  if (res.code !== 0) throw new Error(`fetch-kafka.sh failed (${res.code}): ${res.stderr}`);
  const printed = res.stdout.trim().split('\n').pop() ?? libs;
  if (!existsSync(join(printed, '.complete'))) throw new Error(`fetch-kafka.sh did not produce ${printed}`);
  return printed;
}

function javaBinary(): string {
  if (process.env.JAVA_HOME) return join(process.env.JAVA_HOME, 'bin', 'java');
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'java');
    if (dir && existsSync(candidate)) return candidate;
  }
  return 'java';
}

/** The class-data-sharing archive for this JVM build and these jars (see the file comment). */
function cdsArchive(java: string, libs: string): string | undefined {
  if (process.env.KAFKA_CDS === '0') return undefined;
  try {
    const real = realpathSync(java);
    const key = createHash('sha1')
      .update(`${real}\n${statSync(real).mtimeMs}\n${libs}`)
      .digest('hex')
      .slice(0, 12);
    return join(dirname(libs), `cds-${key}.jsa`);
  } catch {
    return undefined;
  }
}

/** A Kafka cluster id: 16 random bytes, base64url. Never starting with `-`, which the tools would take for an option. */
function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function readState(dataDir: string): BrokerState | undefined {
  const file = join(dataDir, 'broker.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BrokerState) : undefined;
}

function serverProperties(dataDir: string, state: BrokerState, extra: StartKafkaOptions['settings']): string {
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${state.controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${state.port},CONTROLLER://127.0.0.1:${state.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${state.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': join(dataDir, 'kraft'),
    'num.partitions': 1,
    'default.replication.factor': 1,
    'auto.create.topics.enable': false,
    'offsets.topic.replication.factor': 1,
    // One partition for the internal topics: the group coordinator is ready in a moment.
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    'message.max.bytes': MESSAGE_MAX_BYTES,
    'replica.fetch.max.bytes': MESSAGE_MAX_BYTES,
    'replica.fetch.response.max.bytes': MESSAGE_MAX_BYTES,
    'fetch.max.bytes': MESSAGE_MAX_BYTES,
    'socket.request.max.bytes': SOCKET_REQUEST_MAX_BYTES,
    'num.network.threads': 2,
    'num.io.threads': 4,
    'num.recovery.threads.per.data.dir': 1,
    ...extra,
  };
  return `${Object.entries(props)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n')}\n`;
}

function log4jProperties(logFile: string): string {
  return [
    'status = warn',
    'appender.file.type = File',
    'appender.file.name = FILE',
    `appender.file.fileName = ${logFile}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = info',
    'rootLogger.appenderRef.file.ref = FILE',
    'logger.request.name = kafka.request.logger',
    'logger.request.level = warn',
    '',
  ].join('\n');
}

function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolvePort(true);
    });
    sock.once('error', () => resolvePort(false));
  });
}

/** True once the broker answers a metadata request and lists itself. */
async function answersMetadata(brokers: string): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'kafka-broker-probe',
    brokers: [brokers],
    connectionTimeout: 1_000,
    requestTimeout: 2_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0 && cluster.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the JVM under a small bash watchdog, so a broker never outlives the Node process that started it (a test
 * run interrupted with Ctrl-C, a crash, a kill -9): Node holds the watchdog's stdin open, and when it reads end
 * of file the broker gets SIGTERM. SIGTERM to the watchdog (`stop()`) is passed on the same way; its exit code is
 * the JVM's.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null &',
  'child=$!',
  '(cat <&3 >/dev/null; kill -TERM "$child" 2>/dev/null) &',
  'exec 3<&-',
  `trap 'kill -TERM "$child" 2>/dev/null' TERM INT`,
  'status=0',
  'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
  'exit "$status"',
].join('\n');

/**
 * Starts a single-node KRaft broker (see the file comment). Formats the storage with
 * `kafka.tools.StorageTool` only when `dataDir` is not formatted yet.
 */
export async function startKafka(opts: StartKafkaOptions): Promise<RunningKafka> {
  const libs = await ensureKafkaJars();
  const dataDir = resolve(opts.dataDir);
  if (opts.fresh && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  let state = readState(dataDir);
  if (!state || (opts.port !== undefined && opts.port !== state.port)) {
    const port = opts.port ?? state?.port ?? (await freePort());
    let controllerPort = state?.controllerPort ?? (await freePort());
    while (controllerPort === port) controllerPort = await freePort();
    state = { clusterId: state?.clusterId ?? newClusterId(), port, controllerPort };
    writeFileSync(join(dataDir, 'broker.json'), `${JSON.stringify(state, null, 2)}\n`);
  }
  const st = state;
  const propsFile = join(dataDir, 'server.properties');
  const log4jFile = join(dataDir, 'log4j2.properties');
  const logFile = join(dataDir, 'server.log');
  const stdoutFile = join(dataDir, 'stdout.log');
  writeFileSync(propsFile, serverProperties(dataDir, st, opts.settings));
  writeFileSync(log4jFile, log4jProperties(logFile));

  const classpath = `${libs}/*`;
  const java = javaBinary();
  const archive = cdsArchive(java, libs);
  const jvmCommon = [`-Dlog4j2.configurationFile=${log4jFile}`, '-Djava.awt.headless=true'];
  const cdsUse = () => (archive && existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`, '-Xlog:cds=off'] : []);

  if (!existsSync(join(dataDir, 'kraft', 'meta.properties'))) {
    if (st.clusterId.startsWith('-')) {
      st.clusterId = newClusterId();
      writeFileSync(join(dataDir, 'broker.json'), `${JSON.stringify(st, null, 2)}\n`);
    }
    const fmt = await run(java, [
      ...jvmCommon,
      ...cdsUse(),
      '-Xmx256m',
      '-cp',
      classpath,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      st.clusterId,
      '-c',
      propsFile,
    ]);
    if (fmt.code !== 0) throw new Error(`kafka storage format failed (${fmt.code}): ${fmt.stderr}${fmt.stdout}`);
  }

  const brokers = `127.0.0.1:${st.port}`;
  const heap = opts.heap ?? '512m';
  const startTimeoutMs = opts.startTimeoutMs ?? 90_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 20_000;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    if (child) return;
    const out = openSync(stdoutFile, 'a');
    // Without an archive yet, this JVM writes one when it exits cleanly; it is moved into place afterwards.
    const dumpTo = archive && !existsSync(archive) ? `${archive}.${process.pid}-${randomBytes(4).toString('hex')}` : undefined;
    const cds = dumpTo ? [`-XX:ArchiveClassesAtExit=${dumpTo}`, '-Xlog:cds=off'] : cdsUse();
    const proc = spawn(
      'bash',
      [
        '-c',
        WATCHDOG,
        'kafka-broker',
        java,
        ...cds,
        '-Xms64m',
        `-Xmx${heap}`,
        '-XX:+UseG1GC',
        ...(opts.jitArgs ?? ['-XX:TieredStopAtLevel=1']),
        '-XX:MaxGCPauseMillis=20',
        '-XX:+ExitOnOutOfMemoryError',
        ...jvmCommon,
        '-cp',
        classpath,
        'kafka.Kafka',
        propsFile,
      ],
      // Its own process group, so the stop timeout can SIGKILL the JVM along with the watchdog.
      { cwd: dataDir, stdio: ['pipe', out, out], detached: true },
    );
    closeSync(out);
    child = proc;
    let exitInfo: string | undefined;
    exited = new Promise((resolveExit) => {
      proc.once('exit', (code, signal) => {
        exitInfo = `code ${code ?? '-'}, signal ${signal ?? '-'}`;
        if (dumpTo && archive) {
          try {
            // 137: the JVM was killed (SIGKILL) and may have left half an archive.
            if (signal === null && code !== 137 && statSync(dumpTo).size > 0 && !existsSync(archive)) {
              renameSync(dumpTo, archive);
            }
          } catch {
            // no archive written (killed, or not supported): the next start simply runs without one
          }
          rmSync(dumpTo, { force: true });
        }
        if (child === proc) child = undefined;
        resolveExit();
      });
      proc.once('error', (err) => {
        exitInfo = err.message;
        if (child === proc) child = undefined;
        resolveExit();
      });
    });
    proc.stdin?.on('error', () => {}); // EPIPE once the watchdog is gone

    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (exitInfo !== undefined) {
        throw new Error(`kafka broker exited during start (${exitInfo}):\n${tail(stdoutFile)}\n${tail(logFile)}`);
      }
      if ((await portOpen(st.port)) && (await answersMetadata(brokers))) return;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`kafka broker did not answer within ${startTimeoutMs} ms:\n${tail(logFile)}`);
      }
      await sleep(100);
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (!proc) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        if (proc.pid) process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    brokers,
    port: st.port,
    dataDir,
    logFile,
    stop,
    start: launch,
    restart: async () => {
      await stop();
      await launch();
    },
    isRunning: () => child !== undefined,
  };
}
