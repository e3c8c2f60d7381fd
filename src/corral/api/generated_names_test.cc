#include "corral/api/generated_names.h"

#include <string>

#include <gtest/gtest.h>

namespace corral::api {
namespace {

TEST(GeneratedNamesTest, ClaimNameBaseIsCutInProportionBeyond57Characters) {
  EXPECT_EQ(ResourceClaimNameBase("web-0", "gpu"), "web-0-gpu-");
  const std::string pod(40, 'p'), claim(30, 'c');
  // "<pod>-<claim>-" is 72 characters: 40·57/72 = 31 of the pod, 30·57/72 = 23 of the claim.
  EXPECT_EQ(ResourceClaimNameBase(pod, claim), std::string(31, 'p') + "-" + std::string(23, 'c'));
}

TEST(GeneratedNamesTest, HashedSuffixIsFiveAlphabetCharactersAndDependsOnEveryPart) {
  const std::string a = HashedNameSuffix({"ns", "/", "pod", "/", "claim"});
  ASSERT_EQ(a.size(), 5U);
  for (char c : a) EXPECT_NE(kNameAlphabet.find(c), std::string_view::npos) << a;
  EXPECT_EQ(a, HashedNameSuffix({"ns/pod", "/claim"}));  // the parts are concatenated
  EXPECT_NE(a, HashedNameSuffix({"ns", "/", "pod", "/", "claims"}));
}

}  // namespace
}  // namespace corral::api
