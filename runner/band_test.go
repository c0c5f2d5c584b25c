package runner

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/schema"
)

// TestDrawBand: a one-sided band leaves the other side open; NaN is skipped and the lookback
// counts numbers only.
func TestDrawBand(t *testing.T) {
	earlier := make([]float64, 30)
	for i := range earlier {
		earlier[i] = 1000 + float64(i%3)*10
	}
	up := drawBand(schema.Anomaly{Direction: schema.DirectionUp}.WithDefaults(), earlier)
	assert.Nil(t, up.Low)
	require.NotNil(t, up.High)
	down := drawBand(schema.Anomaly{Direction: schema.DirectionDown, Lookback: 3, MinHistory: 2}.WithDefaults(), []float64{math.NaN(), 5, 7, 9, 1000})
	assert.Equal(t, 3, down.Runs, "NaN is skipped, lookback counts numbers")
	assert.Equal(t, 7.0, down.Median)
	assert.Nil(t, down.High)
}

// TestDrawBandHugeValues: bands drawn from metrics near the largest float do not overflow while
// they fit; a band that does is not finite.
func TestDrawBandHugeValues(t *testing.T) {
	a := schema.Anomaly{}.WithDefaults()
	same := drawBand(a, []float64{1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308})
	assert.Equal(t, 1.7e308, same.Median, "the median of two equal huge values")
	assert.Equal(t, 0.0, same.MAD)
	assert.True(t, same.Finite())
	wide := drawBand(a, []float64{1.7e308, -1.7e308, 1.7e308, -1.7e308, 1.7e308, -1.7e308})
	assert.False(t, wide.Finite())
}
