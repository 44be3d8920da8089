export interface BenchResult {
  title: string;
  header: string[];
  rows: string[][];
  notes: string[];
}
