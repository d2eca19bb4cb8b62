import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptBaseline, checkAgainst, figuresOf, formatCheck, medianOf, readBaselines, type SendPathFigures } from './mailer-baseline';

const repeat = (cpuPerMailMs: number, pacedP99Ms: number, direct = { cpuPerMailMs: 4, p99Ms: 100, rate: 300 }): SendPathFigures =>
  figuresOf(direct, { cpuPerMailMs, rate: 120 }, pacedP99Ms);

const baselineOf = (...repeats: SendPathFigures[]) => ({
  acceptedAt: '2026-12-03T00:00:00.000Z',
  commit: 'abcdef0123',
  figures: medianOf(repeats),
  repeats,
});

describe('the mail bench against its baseline', () => {
  it('states each figure as a ratio to the direct run of the same repeat', () => {
    expect(repeat(8, 300)).toEqual({
      cpuPerMailRatio: 2,
      pacedP99Ratio: 3,
      rateRatio: 0.4,
      cpuPerMailMs: 8,
      directCpuPerMailMs: 4,
      pacedP99Ms: 300,
      directP99Ms: 100,
    });
  });

  it('takes the median of the repeats figure by figure', () => {
    expect(medianOf([repeat(8, 900), repeat(12, 300), repeat(10, 400)])).toMatchObject({ cpuPerMailMs: 10, pacedP99Ms: 400 });
    expect(medianOf([repeat(8, 300), repeat(10, 500)])).toMatchObject({ cpuPerMailRatio: 2.25, pacedP99Ratio: 4 });
  });

  it('keeps to a baseline within 15 % more CPU per mail and 50 % more paced p99', () => {
    const check = checkAgainst(baselineOf(repeat(8, 300)), [repeat(9, 440), repeat(9.2, 420), repeat(20, 2000)]);
    expect(check.regressions).toEqual([]);
    expect(check.cpuPerMailChange).toBe(0.15);
    expect(formatCheck(check)).toMatch(/: kept$/);
  });

  it('fails when the median of the repeats rises past either limit, whatever one repeat did', () => {
    const cpu = checkAgainst(baselineOf(repeat(8, 300)), [repeat(9.4, 300), repeat(9.5, 300), repeat(7, 300)]);
    expect(cpu.regressions).toEqual([expect.stringMatching(/^CPU per mail rose \+17\.5 %/)]);
    const paced = checkAgainst(baselineOf(repeat(8, 300)), [repeat(8, 460), repeat(8, 200), repeat(8, 470)]);
    expect(paced.regressions).toEqual([expect.stringMatching(/^the paced p99 rose \+53\.3 %/)]);
    expect(formatCheck(paced)).toMatch(/REGRESSED/);
  });

  it('judges ratios, not milliseconds: a slower machine moves the direct run too', () => {
    const slower = { cpuPerMailMs: 6, p99Ms: 150, rate: 200 };
    expect(checkAgainst(baselineOf(repeat(8, 300)), [repeat(12, 450, slower)]).regressions).toEqual([]);
  });

  it('passes without a baseline and says how to accept one; accepting keeps the other benches’ baselines', () => {
    expect(formatCheck(checkAgainst(null, [repeat(8, 300)]))).toMatch(/BENCH_ACCEPT_BASELINE=1/);
    const file = join(mkdtempSync(join(tmpdir(), 'baseline-')), 'baseline.json');
    writeFileSync(file, JSON.stringify({ other: { kept: true } }));
    const check = checkAgainst(null, [repeat(8, 300), repeat(10, 350), repeat(9, 320)]);
    const accepted = acceptBaseline(file, check, 'abcdef0123', new Date('2026-12-03T12:00:00Z'));
    expect(accepted.figures).toMatchObject({ cpuPerMailMs: 9, pacedP99Ms: 320 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ other: { kept: true }, mailer: { commit: 'abcdef0123' } });
    expect(readBaselines(file).mailer?.repeats).toHaveLength(3);
    expect(checkAgainst(readBaselines(file).mailer!, [repeat(9, 320)]).regressions).toEqual([]);
  });
});
