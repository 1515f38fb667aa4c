/**
 * The run records of local runs (functions/engine/run-records.ts) in one JSON
 * file: each tenant's latest findings per scenario level, so a second local run
 * says what changed since the first, each tenant's watermark per scenario, and
 * the questions asked. One process
 * writes it at a time (a local run).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  type FindingsPointer,
  findingsKey,
  isLaterMark,
  type NewQuestion,
  type QuestionStatus,
  questionKey,
  type RunRecords,
  type Watermark,
  watermarkKey,
} from '../../functions/engine/run-records';

interface FindingsEntry {
  readonly latest: FindingsPointer;
  readonly previous?: FindingsPointer;
}

interface QuestionEntry extends Omit<NewQuestion, 'taskToken'> {
  readonly status: QuestionStatus;
}

interface RecordsFile {
  findings: Record<string, FindingsEntry>;
  questions: Record<string, QuestionEntry>;
  /** Absent in files written before watermarks existed. */
  watermarks?: Record<string, Watermark>;
}

/** Run records in `<dir>/run-records.json`. */
export class FileRunRecords implements RunRecords {
  readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'run-records.json');
  }

  private load(): RecordsFile {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as RecordsFile;
    } catch {
      return { findings: {}, questions: {} };
    }
  }

  private save(records: RecordsFile): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify(records, null, 1)}\n`);
  }

  async swapLatestFindings(
    tenant: string,
    scenario: string,
    level: string,
    current: FindingsPointer,
    options: { readonly readOnly?: boolean } = {},
  ): Promise<FindingsPointer | undefined> {
    const records = this.load();
    const key = `${tenant}/${findingsKey(scenario, level)}`;
    const entry = records.findings[key];
    if (entry?.latest.runId === current.runId) return entry.previous;
    if (!options.readOnly) {
      records.findings[key] = { latest: current, ...(entry ? { previous: entry.latest } : {}) };
      this.save(records);
    }
    return entry?.latest;
  }

  async readWatermark(tenant: string, scenario: string): Promise<Watermark | undefined> {
    return this.load().watermarks?.[`${tenant}/${watermarkKey(scenario)}`];
  }

  async advanceWatermark(tenant: string, scenario: string, mark: Watermark): Promise<boolean> {
    const records = this.load();
    const key = `${tenant}/${watermarkKey(scenario)}`;
    const kept = records.watermarks?.[key];
    if (kept && isLaterMark(kept.value, mark.value)) return false;
    records.watermarks = { ...records.watermarks, [key]: mark };
    this.save(records);
    return true;
  }

  async putQuestion(question: NewQuestion): Promise<void> {
    const records = this.load();
    // The task token of a local run resumes nothing outside this process: not kept.
    const { taskToken: _token, ...kept } = question;
    records.questions[`${question.tenant}/${questionKey(question.runId, question.level, question.turn)}`] = {
      ...kept,
      status: 'open',
    };
    this.save(records);
  }

  async closeQuestion(
    tenant: string,
    runId: string,
    level: string,
    turn: number,
    status: Exclude<QuestionStatus, 'open' | 'answering'>,
  ): Promise<void> {
    const records = this.load();
    const key = `${tenant}/${questionKey(runId, level, turn)}`;
    const question = records.questions[key];
    if (!question || (question.status !== 'open' && question.status !== 'answering')) return;
    records.questions[key] = { ...question, status };
    this.save(records);
  }
}
