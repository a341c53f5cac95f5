// Equivalent alternatives as one suggestion ("never ten lines that save the same bytes
// the same way").
//
// Two suggestions are equivalent when they are of the same kind and give the same size: for the
// user they are the same fix, reached by a different permutation. The first of them in the
// ranking stays; the others' layouts are listed in its `alternatives`, in ranking order.
//
// Example: s32[2048,1,128,128,4]{4,3,2,1,0:T(8,128)} on the TPU has 60 orders of 512 MiB; ranked,
// they become one "reorder" suggestion {3,4,2,1,0:T(4,128)} with 59 alternatives, next to the
// one "reshape" suggestion s32[2048,1,128,512] of the same size (another kind, another line).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::explain {

// `ranked` is best first; each Item has `kind`, `size_bytes`, `layout` and `alternatives`.
// Returns at most `limit` groups, in the order of their first member.
template <class Item>
std::vector<Item> group_equivalent(std::vector<Item> ranked, std::size_t limit) {
  std::vector<Item> groups;
  std::map<std::pair<std::string, int64_t>, std::size_t> index;  // (kind, size) -> group
  for (Item& item : ranked) {
    const auto key = std::make_pair(item.kind, item.size_bytes);
    if (auto it = index.find(key); it != index.end()) {
      auto& alternatives = groups[it->second].alternatives;
      alternatives.push_back(item.layout);
      alternatives.insert(alternatives.end(), item.alternatives.begin(), item.alternatives.end());
      continue;
    }
    if (groups.size() >= limit) continue;  // later members may still join a kept group
    index.emplace(key, groups.size());
    groups.push_back(std::move(item));
  }
  return groups;
}

}  // namespace tessera::explain
