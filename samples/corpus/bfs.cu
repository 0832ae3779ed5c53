// Breadth-first search in the style of Rodinia's `bfs`: one thread per node, a frontier
// mask, and two kernels per level. Each frontier thread walks its own edge list and
// reads the visited flags of random neighbours.
//   usage: bfs [nodes=1048576] [degree=8]
#include <random>
#include <vector>
#include "../src/common.cuh"

struct Node {
  int starting;
  int no_of_edges;
};

__global__ void Kernel(const Node* nodes, const int* edges, bool* mask, bool* updating,
                       const bool* visited, int* cost, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && mask[tid]) {
    mask[tid] = false;
    for (int i = nodes[tid].starting; i < nodes[tid].starting + nodes[tid].no_of_edges; i++) {
      int id = edges[i];
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating[id] = true;
      }
    }
  }
}

__global__ void Kernel2(bool* mask, bool* updating, bool* visited, bool* over, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && updating[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *over = true;
    updating[tid] = false;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int degree = argc > 2 ? atoi(argv[2]) : 8;
  std::mt19937 rng(11);
  std::vector<Node> hnodes(n);
  std::vector<int> hedges;
  hedges.reserve(size_t(n) * degree);
  for (int v = 0; v < n; v++) {
    int d = 1 + rng() % (2 * degree - 1);
    hnodes[v] = {int(hedges.size()), d};
    for (int k = 0; k < d; k++) hedges.push_back(rng() % n);
  }
  Node* nodes;
  int *edges, *cost;
  bool *mask, *updating, *visited, *over;
  CHECK(cudaMalloc(&nodes, n * sizeof(Node)));
  CHECK(cudaMalloc(&edges, hedges.size() * sizeof(int)));
  CHECK(cudaMalloc(&cost, n * sizeof(int)));
  CHECK(cudaMalloc(&mask, n));
  CHECK(cudaMalloc(&updating, n));
  CHECK(cudaMalloc(&visited, n));
  CHECK(cudaMalloc(&over, 1));
  CHECK(cudaMemcpy(nodes, hnodes.data(), n * sizeof(Node), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(edges, hedges.data(), hedges.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(cost, 0xff, n * sizeof(int)));
  CHECK(cudaMemset(mask, 0, n));
  CHECK(cudaMemset(updating, 0, n));
  CHECK(cudaMemset(visited, 0, n));
  bool yes = true;
  int zero = 0;
  CHECK(cudaMemcpy(mask, &yes, 1, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(visited, &yes, 1, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(cost, &zero, sizeof(int), cudaMemcpyHostToDevice));
  int blocks = (n + 511) / 512, levels = 0;
  bool more;
  do {
    more = false;
    CHECK(cudaMemcpy(over, &more, 1, cudaMemcpyHostToDevice));
    Kernel<<<blocks, 512>>>(nodes, edges, mask, updating, visited, cost, n);
    Kernel2<<<blocks, 512>>>(mask, updating, visited, over, n);
    CHECK(cudaMemcpy(&more, over, 1, cudaMemcpyDeviceToHost));
    levels++;
  } while (more);
  std::printf("bfs %d nodes, %zu edges, %d levels\n", n, hedges.size(), levels);
  return 0;
}
