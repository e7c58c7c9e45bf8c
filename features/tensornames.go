package features

import "fmt"

// TensorNames names the entries of Tensor's vector for a dims-D stencil with maximum order r (0
// means smart.DefaultMaxOrder), in the same order: "tensor_x<x>_y<y>" in 2-D and
// "tensor_x<x>_y<y>_z<z>" in 3-D, by the entry's offset from the centre (e.g. "tensor_x-4_y-4").
// A model whose schema holds these columns can find its tensor input by name.
func TensorNames(dims, r int) []string {
	shape := TensorShape(dims, r)
	if shape == nil || dims != 2 && dims != 3 {
		return nil
	}
	h := shape[0] / 2
	var names []string
	for z := -h; z <= h && (dims == 3 || z == -h); z++ {
		for y := -h; y <= h; y++ {
			for x := -h; x <= h; x++ {
				if dims == 3 {
					names = append(names, fmt.Sprintf("tensor_x%d_y%d_z%d", x, y, z))
				} else {
					names = append(names, fmt.Sprintf("tensor_x%d_y%d", x, y))
				}
			}
		}
	}
	return names
}
