package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

/** The same numbers as `skipstone.layout.builders.noise`'s doctests: the two languages hash alike. */
class NoiseSuite extends AnyFunSuite {

  test("hashes of (seed, stream, node, item) are Python's") {
    assert((0L to 2L).map(i => f"0x${Noise.hashed(0, Noise.Preference, 1, i)}%x") ==
      Seq("0xfaa6282a95da9f89", "0x27c9219db08517f0", "0xc1ae2036d5caa152"))
  }

  test("a hash as a number in [0, 1) takes its top 53 bits") {
    assert(Noise.unit(Noise.hashed(0, Noise.Preference, 1, 1)) == 0.15541277026979494)
    assert(Noise.unit(-1L) < 1.0 && Noise.unit(0L) == 0.0)
  }

  test("choosing rows keeps those of the smallest hashes, in that order") {
    assert(Noise.choose(Array.range(0, 10), 3, 0, Noise.GainRows, 1).toSeq == Seq(3, 8, 5))
    assert(Noise.choose(Array.range(0, 10), 20, 0, Noise.GainRows, 1).sorted.toSeq == (0 until 10))
  }
}
