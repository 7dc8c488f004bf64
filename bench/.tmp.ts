import usearch from 'usearch';
const { Index, MetricKind, ScalarKind } = usearch as any;
const index = new Index({ dimensions: 4, metric: MetricKind.Cos, quantization: ScalarKind.F32, connectivity: 16 });
index.add(1n, new Float32Array([1, 0, 0, 0]));
index.add(2n, new Float32Array([0, 1, 0, 0]));
const r = index.search(new Float32Array([0.9, 0.1, 0, 0]), 1, 0);
console.log(r.keys, r.distances, index.size());
index.remove(1n);
console.log(index.size(), Object.keys(usearch));
