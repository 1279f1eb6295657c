import { describe, expect, it } from '@jest/globals';
import { SameTurnAnswers } from './same-turn-answers';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SameTurnAnswers', () => {
  it('runs an answer once for identical keys of one turn and counts the requests that shared it', async () => {
    let shared = 0;
    let runs = 0;
    const answers = new SameTurnAnswers<string>(() => shared++);
    const run = () => Promise.resolve(`answer ${++runs}`);
    const got = await Promise.all([answers.answer('/a', run), answers.answer('/a', run), answers.answer('/a', run)]);
    expect(got).toEqual(['answer 1', 'answer 1', 'answer 1']);
    expect([runs, shared]).toEqual([1, 2]);
  });

  it('runs each key of a turn on its own', async () => {
    const ran: string[] = [];
    const answers = new SameTurnAnswers<string>();
    const run = (k: string) => () => (ran.push(k), Promise.resolve(k));
    expect(await Promise.all([answers.answer('/a', run('/a')), answers.answer('/b', run('/b'))])).toEqual(['/a', '/b']);
    expect(ran).toEqual(['/a', '/b']);
  });

  it('never hands a later turn an earlier answer, even one still running', async () => {
    const answers = new SameTurnAnswers<string>();
    let release!: (v: string) => void;
    const first = answers.answer('/a', () => new Promise<string>((resolve) => (release = resolve)));
    await nextTurn();
    const second = answers.answer('/a', () => Promise.resolve('fresh'));
    release('stale');
    expect(await Promise.all([first, second])).toEqual(['stale', 'fresh']);
  });

  it('shares a failure with the requests of its turn only', async () => {
    const answers = new SameTurnAnswers<string>();
    const failing = () => Promise.reject(new Error('statement failed'));
    const both = [answers.answer('/a', failing), answers.answer('/a', () => Promise.resolve('unused'))];
    await expect(both[0]).rejects.toThrow('statement failed');
    await expect(both[1]).rejects.toThrow('statement failed');
    await nextTurn();
    await expect(answers.answer('/a', () => Promise.resolve('next turn'))).resolves.toBe('next turn');
  });
});
